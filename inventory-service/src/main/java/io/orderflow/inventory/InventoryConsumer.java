package io.orderflow.inventory;

import io.micrometer.core.instrument.MeterRegistry;
import io.opentelemetry.api.OpenTelemetry;
import io.orderflow.consumer.ServiceConsumer;
import io.quarkus.runtime.ShutdownEvent;
import io.smallrye.common.annotation.Blocking;
import jakarta.enterprise.event.Observes;
import jakarta.inject.Singleton;
import java.time.Clock;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeoutException;
import javax.sql.DataSource;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.eclipse.microprofile.config.inject.ConfigProperty;
import org.eclipse.microprofile.reactive.messaging.Incoming;

/**
 * The service's two consumers, both in the group {@code inventory-service}: batches of the {@code orders} topic, and
 * batches of its retry topics ({@code inventory-service_retry_<ms>}, subscribed by pattern), each applied with the
 * {@link InventoryLedger} (event-consumer's {@link ServiceConsumer}). Quarkus Messaging commits a batch's offsets only
 * after the method returns (commit strategy {@code throttled}, acknowledgement after processing); an exception stops
 * the channel ({@code failure-strategy=fail}) rather than skip records, and the health check reports it.
 */
@Singleton
public class InventoryConsumer {

    static final String GROUP = "inventory-service";

    private final ServiceConsumer consumer;

    InventoryConsumer(
            DataSource dataSource,
            MeterRegistry registry,
            OpenTelemetry openTelemetry,
            InventoryConfig config,
            @ConfigProperty(name = "kafka.bootstrap.servers") String bootstrapServers)
            throws InterruptedException, ExecutionException, TimeoutException {
        consumer = ServiceConsumer.start(
                GROUP,
                bootstrapServers,
                config.retryDelays(),
                config.failureTopicPartitions(),
                dataSource,
                new InventoryLedger(Clock.systemUTC()),
                registry,
                openTelemetry);
    }

    @Incoming("orders")
    @Blocking
    public void consume(ConsumerRecords<String, byte[]> records) throws InterruptedException {
        consumer.process(records);
    }

    @Incoming("orders-retry")
    @Blocking
    public void retry(ConsumerRecords<String, byte[]> records) throws InterruptedException {
        consumer.processRetries(records);
    }

    /** The service's consumer, for the drills' switch ({@link DrillResource}). */
    ServiceConsumer consumer() {
        return consumer;
    }

    void stop(@Observes ShutdownEvent event) {
        consumer.close();
    }
}
