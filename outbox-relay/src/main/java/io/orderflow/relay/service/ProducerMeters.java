package io.orderflow.relay.service;

import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.binder.kafka.KafkaClientMetrics;
import org.apache.kafka.clients.producer.Producer;

/**
 * The relay's Kafka producer's own metrics on {@code /q/metrics}, as {@code kafka_producer_*} with the producer's
 * {@code client_id} (requests sent, records per request, request latency, time records waited in the producer's
 * buffer, errors and retries): the same meters Quarkus binds for the producers and consumers it creates itself, which
 * the relay's producer, made by the relay, would otherwise lack. The relay makes a new producer after losing its
 * leadership or its broker; each binding replaces the meters of the producer before it. Thread-safe.
 */
final class ProducerMeters implements AutoCloseable {
    private final MeterRegistry registry;
    private KafkaClientMetrics bound;

    ProducerMeters(MeterRegistry registry) {
        this.registry = registry;
    }

    /** Binds {@code producer}'s metrics in place of the previous producer's; returns {@code producer}. */
    synchronized <P extends Producer<?, ?>> P bind(P producer) {
        if (bound != null) {
            bound.close();
        }
        bound = new KafkaClientMetrics(producer);
        bound.bindTo(registry);
        return producer;
    }

    @Override
    public synchronized void close() {
        if (bound != null) {
            bound.close();
            bound = null;
        }
    }
}
