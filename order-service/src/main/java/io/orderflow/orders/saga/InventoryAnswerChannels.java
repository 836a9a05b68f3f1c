package io.orderflow.orders.saga;

import io.micrometer.core.instrument.MeterRegistry;
import io.opentelemetry.api.OpenTelemetry;
import io.orderflow.consumer.ServiceConsumer;
import io.orderflow.consumer.quarkus.ConsumerConfig;
import io.orderflow.consumer.quarkus.SlowdownTarget;
import io.orderflow.contracts.EventCatalog;
import io.orderflow.kafka.KafkaClientSettings;
import io.smallrye.common.annotation.Blocking;
import jakarta.annotation.PreDestroy;
import jakarta.inject.Singleton;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeoutException;
import javax.sql.DataSource;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.eclipse.microprofile.config.Config;
import org.eclipse.microprofile.config.inject.ConfigProperty;
import org.eclipse.microprofile.reactive.messaging.Incoming;

/**
 * order-service's consumer of inventory's answers: the {@code inventory} topic and the service's retry topics
 * ({@code order-service_retry_<ms>}), in batches, in the consumer group of the {@code inventory} channel (
 * {@code order-service}), each batch applied by {@link InventoryAnswers} through event-consumer's
 * {@link ServiceConsumer}: exactly once in effect, failed records through the retry topics to the dead-letter topic
 * {@code dead-letter-topic-order-service}, with the consumer meters and spans every consuming service has. Offsets are
 * committed after the method returns, as in the consuming services (event-consumer's {@code OrderEventChannels}, whose
 * channels read {@code orders} and which this service does not use). The channels are configured in
 * application.properties ({@code mp.messaging.incoming.inventory.*} and {@code inventory-retry.*}).
 */
@Singleton
public class InventoryAnswerChannels implements SlowdownTarget {

    private final ServiceConsumer consumer;

    InventoryAnswerChannels(
            DataSource dataSource,
            MeterRegistry registry,
            OpenTelemetry openTelemetry,
            ConsumerConfig config,
            InventoryAnswers answers,
            @ConfigProperty(name = "mp.messaging.incoming.inventory.group.id") String group,
            Config configuration)
            throws InterruptedException, ExecutionException, TimeoutException {
        this.consumer = ServiceConsumer.start(
                group,
                EventCatalog.inventoryEvents(),
                KafkaClientSettings.fromConfig(configuration),
                config.retryDelays(),
                config.failureTopicPartitions(),
                dataSource,
                answers,
                registry,
                openTelemetry);
    }

    @Incoming("inventory")
    @Blocking
    public void consume(ConsumerRecords<String, byte[]> records) throws InterruptedException {
        consumer.process(records);
    }

    @Incoming("inventory-retry")
    @Blocking
    public void retry(ConsumerRecords<String, byte[]> records) throws InterruptedException {
        consumer.processRetries(records);
    }

    /** The saga's consumer, for the drills' slowdown switch ({@code PUT /drills/slowdown}). */
    @Override
    public ServiceConsumer consumer() {
        return consumer;
    }

    @PreDestroy
    void stop() {
        consumer.close();
    }
}
