package io.orderflow.relay;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.orderflow.postgres.PostgresDatabase;
import io.orderflow.relay.TopicReader.Published;
import io.orderflow.testing.InProcessBroker;
import io.orderflow.testing.PostgresTest;
import io.orderflow.testing.ServiceDatabase;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Several services' outboxes are relayed by one relay per database, each configured with its database and its topic
 * (libs/outbox/README.md). Two relays with the same relay group id lead at once, because advisory locks are per database,
 * and each publishes exactly its own database's rows to its own topic, even where both outboxes hold the same
 * aggregate id.
 */
@PostgresTest
class RelayPerDatabaseTest {

    private static final Duration WITHIN = Duration.ofSeconds(30);

    @Test
    void eachDatabasesRelayLeadsAndPublishesOnlyItsOwnOutboxToItsOwnTopic(
            @ServiceDatabase("order-service") PostgresDatabase orderDatabase,
            @ServiceDatabase("inventory-service") PostgresDatabase inventoryDatabase,
            @TempDir Path brokerDir)
            throws Exception {
        OutboxFixture orders = OutboxFixture.clean(orderDatabase);
        OutboxFixture inventory = OutboxFixture.clean(inventoryDatabase);
        try (InProcessBroker broker = InProcessBroker.start(brokerDir)) {
            RelayHarness ordersHarness = new RelayHarness(orders, broker);
            RelayHarness inventoryHarness = new RelayHarness(inventory, broker);
            ordersHarness.createTopic("orders", 2);
            inventoryHarness.createTopic("inventory", 2);
            UUID created = orders.write("order-1", 1);
            UUID paid = orders.write("order-1", 2);
            UUID reserved = inventory.write("order-1", 1);
            UUID other = inventory.write("order-2", 1);

            try (OutboxRelay ordersRelay = ordersHarness.relay(RelayDefaults.settings(Map.of("topic", "orders")));
                    OutboxRelay inventoryRelay =
                            inventoryHarness.relay(RelayDefaults.settings(Map.of("topic", "inventory")))) {
                assertThat(ordersRelay.settings().leaderLockId())
                        .isEqualTo(inventoryRelay.settings().leaderLockId());
                Thread ordersThread = RelayHarness.runInBackground(ordersRelay, "relay-orders");
                Thread inventoryThread = RelayHarness.runInBackground(inventoryRelay, "relay-inventory");

                await().atMost(WITHIN)
                        .until(() -> orders.count("published_at IS NULL") == 0
                                && inventory.count("published_at IS NULL") == 0);
                assertThat(ordersRelay.status().role()).isEqualTo(RelayStatus.Role.LEADER);
                assertThat(inventoryRelay.status().role()).isEqualTo(RelayStatus.Role.LEADER);

                assertThat(eventIds(broker, "orders")).containsExactly(created.toString(), paid.toString());
                assertThat(eventIds(broker, "inventory"))
                        .containsExactlyInAnyOrder(reserved.toString(), other.toString());

                ordersRelay.close();
                inventoryRelay.close();
                ordersThread.join(WITHIN);
                inventoryThread.join(WITHIN);
            }
        }
    }

    private static List<String> eventIds(InProcessBroker broker, String topic) {
        try (TopicReader reader = new TopicReader(broker.bootstrapServers(), topic)) {
            return reader.readToEnd(WITHIN).stream().map(Published::eventId).toList();
        }
    }
}
