package io.orderflow.consumer.quarkus;

import io.micrometer.core.instrument.MeterRegistry;
import io.opentelemetry.api.OpenTelemetry;
import io.orderflow.consumer.BatchCommit;
import io.orderflow.consumer.EventHandler;
import io.orderflow.consumer.ServiceConsumer;
import io.orderflow.kafka.KafkaClientSettings;
import io.smallrye.common.annotation.Blocking;
import io.smallrye.reactive.messaging.kafka.KafkaClientService;
import jakarta.annotation.PreDestroy;
import jakarta.enterprise.inject.Instance;
import jakarta.inject.Singleton;
import java.time.Duration;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeoutException;
import javax.sql.DataSource;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.eclipse.microprofile.config.Config;
import org.eclipse.microprofile.config.inject.ConfigProperty;
import org.eclipse.microprofile.health.Readiness;
import org.eclipse.microprofile.reactive.messaging.Incoming;

/**
 * A consuming service's two Quarkus Messaging channels, both in the service's consumer group (the {@code group.id} of
 * its {@code orders} channel): batches of the {@code orders} topic, and batches of its retry topics ({@code
 * <group>_retry_<ms>}, subscribed by pattern), each applied with the service's one {@link EventHandler} bean through
 * {@link ServiceConsumer}. Quarkus Messaging commits a batch's offsets only after the method returns (commit strategy
 * {@code throttled}, acknowledgement after processing); an exception stops the channel ({@code failure-strategy=fail})
 * rather than skip records, and the health check reports it. The channels themselves are configured in each service's
 * application.properties ({@code mp.messaging.incoming.orders.*} and {@code orders-retry.*}). Once the consumer is
 * assembled, the service's {@link ConsumerWarmUp} begins.
 *
 * <p>A service with a {@link BatchCommit} bean hands it each applied batch before the method returns: with the
 * {@code orders} batch's next offsets and the consumer's group metadata (SmallRye's copy, refreshed on rebalance), so
 * that it can commit them in a Kafka transaction of its own; the channel's {@code commit-strategy} is then
 * {@code ignore}.
 */
@Singleton
public class OrderEventChannels implements SlowdownTarget {

    private final String group;
    private final ServiceConsumer consumer;
    private final Instance<BatchCommit> commits;
    private final KafkaClientService kafkaClients;

    OrderEventChannels(
            DataSource dataSource,
            MeterRegistry registry,
            OpenTelemetry openTelemetry,
            ConsumerConfig config,
            @Readiness ConsumerWarmUp warmUp, // a health check's qualifier
            EventHandler handler,
            @ConfigProperty(name = "mp.messaging.incoming.orders.group.id") String group,
            Config configuration,
            Instance<BatchCommit> commits,
            KafkaClientService kafkaClients)
            throws InterruptedException, ExecutionException, TimeoutException {
        this.group = group;
        this.commits = commits;
        this.kafkaClients = kafkaClients;
        this.consumer = ServiceConsumer.start(
                group,
                KafkaClientSettings.fromConfig(configuration), // the channels' cluster and security settings
                config.retryDelays(),
                config.failureTopicPartitions(),
                dataSource,
                handler,
                registry,
                openTelemetry);
        warmUp.begin(consumer);
    }

    @Incoming("orders")
    @Blocking
    public void consume(ConsumerRecords<String, byte[]> records) throws Exception {
        consumer.process(records);
        if (commits.isResolvable()) {
            commits.get()
                    .sourceBatchApplied(
                            BatchCommit.nextOffsets(records),
                            kafkaClients
                                    .getConsumer("orders")
                                    .consumerGroupMetadata()
                                    .await()
                                    .atMost(Duration.ofSeconds(30)));
        }
    }

    @Incoming("orders-retry")
    @Blocking
    public void retry(ConsumerRecords<String, byte[]> records) throws Exception {
        consumer.processRetries(records);
        if (commits.isResolvable()) {
            commits.get().retryBatchApplied();
        }
    }

    /** The consumer group both channels are in. */
    public String group() {
        return group;
    }

    /** The service's consumer, for the drills' switch ({@link DrillResource}). */
    @Override
    public ServiceConsumer consumer() {
        return consumer;
    }

    @PreDestroy
    void stop() {
        consumer.close();
    }
}
