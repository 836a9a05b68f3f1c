package io.orderflow.inventory;

import io.orderflow.consumer.BatchCommit;
import io.orderflow.kafka.KafkaClientSettings;
import io.quarkus.runtime.StartupEvent;
import jakarta.annotation.PreDestroy;
import jakarta.enterprise.event.Observes;
import jakarta.inject.Inject;
import jakarta.inject.Singleton;
import java.util.Map;
import javax.sql.DataSource;
import org.apache.kafka.clients.consumer.ConsumerGroupMetadata;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.TopicPartition;
import org.eclipse.microprofile.config.Config;
import org.jboss.logging.Logger;

/**
 * The mode of {@code orderflow.inventory-service.outcomes} applied to each batch: in {@code outbox} mode nothing (the outbox
 * relay publishes, the channel commits the offsets); in {@code kafka-transactions} mode the batch's offsets and every
 * staged outcome in one Kafka transaction ({@link OutcomeTransactions}). The retry channel's batches publish their
 * outcomes the same way, in a transaction without offsets: retry-topic offsets, and the retry and dead-letter records
 * the consumer library sends, stay outside the transaction (at least once, harmless because every event is claimed
 * once in {@code processed_events}). Thread-safe.
 */
@Singleton
public class InventoryOutcomes implements BatchCommit {

    private static final Logger LOG = Logger.getLogger(InventoryOutcomes.class);

    private final OutcomeTransactions transactions; // null in outbox mode

    @Inject
    InventoryOutcomes(InventoryConfig config, DataSource database, Config configuration) {
        this.transactions = config.outcomes() == InventoryConfig.Outcomes.KAFKA_TRANSACTIONS
                ? new OutcomeTransactions(
                        database,
                        KafkaClientSettings.fromConfig(configuration),
                        config.outcomesTopic(),
                        config.transactionalId())
                : null;
    }

    /**
     * At start, outcomes a crash left staged after their offsets were committed (the one window that duplicates) go out
     * without waiting for the next batch; in the background, so that start-up does not wait for the broker.
     */
    void publishLeftovers(@Observes StartupEvent start) {
        if (transactions != null) {
            Thread.ofVirtual().name("inventory-outcomes-at-start").start(() -> {
                try {
                    transactions.publish(Map.of(), null);
                } catch (Exception e) {
                    LOG.warnf("Staged outcomes not published at start (the next batch publishes them): %s", e);
                }
            });
        }
    }

    @Override
    public void sourceBatchApplied(Map<TopicPartition, OffsetAndMetadata> offsets, ConsumerGroupMetadata group)
            throws Exception {
        if (transactions != null) {
            transactions.publish(offsets, group);
        }
    }

    @Override
    public void retryBatchApplied() throws Exception {
        if (transactions != null) {
            transactions.publish(Map.of(), null);
        }
    }

    @PreDestroy
    void close() {
        if (transactions != null) {
            transactions.close();
        }
    }
}
