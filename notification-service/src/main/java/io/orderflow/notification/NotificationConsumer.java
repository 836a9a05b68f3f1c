package io.orderflow.notification;

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
 * The service's consumers in the group {@code notification-service}: the {@code orders} topic and its retry topics, in
 * batches, applied with the {@link NotificationLedger} (which writes mails; {@link MailSender} sends them). Offsets
 * are committed after a batch returns; a failing batch stops the channel. See docs/consumers.md.
 */
@Singleton
public class NotificationConsumer {

    static final String GROUP = "notification-service";

    private final ServiceConsumer consumer;

    NotificationConsumer(
            DataSource dataSource,
            MeterRegistry registry,
            OpenTelemetry openTelemetry,
            NotificationConfig config,
            NotificationLedger ledger,
            @ConfigProperty(name = "kafka.bootstrap.servers") String bootstrapServers)
            throws InterruptedException, ExecutionException, TimeoutException {
        consumer = ServiceConsumer.start(
                GROUP,
                bootstrapServers,
                config.retryDelays(),
                config.failureTopicPartitions(),
                dataSource,
                ledger,
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
