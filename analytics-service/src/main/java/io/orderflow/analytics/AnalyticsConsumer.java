package io.orderflow.analytics;

import io.micrometer.core.instrument.MeterRegistry;
import io.opentelemetry.api.OpenTelemetry;
import io.orderflow.consumer.ServiceConsumer;
import io.quarkus.runtime.ShutdownEvent;
import io.smallrye.common.annotation.Blocking;
import jakarta.enterprise.event.Observes;
import jakarta.inject.Singleton;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeoutException;
import javax.sql.DataSource;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.eclipse.microprofile.config.inject.ConfigProperty;
import org.eclipse.microprofile.reactive.messaging.Incoming;

/**
 * The service's consumers in the group {@code analytics-service}: the {@code orders} topic and its retry topics, in
 * batches, applied with {@link MinuteWindows}. Offsets are committed after a batch returns; a failing batch stops the channel. See docs/consumers.md.
 */
@Singleton
public class AnalyticsConsumer {

    static final String GROUP = "analytics-service";

    private final ServiceConsumer consumer;

    AnalyticsConsumer(
            DataSource dataSource,
            MeterRegistry registry,
            OpenTelemetry openTelemetry,
            AnalyticsConfig config,
            @ConfigProperty(name = "kafka.bootstrap.servers") String bootstrapServers)
            throws InterruptedException, ExecutionException, TimeoutException {
        consumer = ServiceConsumer.start(
                GROUP,
                bootstrapServers,
                config.retryDelays(),
                config.failureTopicPartitions(),
                dataSource,
                new MinuteWindows(),
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
