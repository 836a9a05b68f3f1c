package io.orderflow.orders;

import static io.restassured.RestAssured.given;
import static org.awaitility.Awaitility.await;

import io.orderflow.contracts.EventCatalog;
import io.orderflow.contracts.EventCodec;
import io.orderflow.contracts.Topics;
import io.orderflow.contracts.inventory.InventoryRejected;
import io.orderflow.contracts.inventory.InventoryReserved;
import io.orderflow.contracts.inventory.ReservedLine;
import io.orderflow.contracts.order.OrderEvent;
import io.orderflow.testing.quarkus.BrokerResource;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.common.serialization.StringSerializer;

/**
 * inventory-service's answers, for tests: published to the test broker's {@code inventory} topic as inventory-service
 * publishes them (keyed by order id, in an envelope of inventory's catalogue), so that order-service's saga consumer
 * reads them as in production. {@link #reserves} and {@link #rejects} wait until the order has left {@code CREATED}.
 */
public final class InventoryTopic {

    private static final EventCodec CODEC = new EventCodec(EventCatalog.inventoryEvents());

    private InventoryTopic() {}

    /** Inventory reserves {@code orderId}'s stock; returns once the order is CONFIRMED. */
    public static void reserves(UUID orderId) {
        publish(new InventoryReserved(orderId.toString(), List.of(new ReservedLine("SKU-1", 2))));
        awaitStatus(orderId, "CONFIRMED");
    }

    /** Inventory rejects {@code orderId} for {@code shortSkus}; returns once the order is REJECTED. */
    public static void rejects(UUID orderId, String reason, List<String> shortSkus) {
        publish(new InventoryRejected(orderId.toString(), reason, shortSkus));
        awaitStatus(orderId, "REJECTED");
    }

    /** Publishes {@code answer} (acknowledged by the broker) with a new event id; returns that id. */
    public static UUID publish(OrderEvent answer) {
        UUID eventId = UUID.randomUUID();
        publish(answer.orderId(), CODEC.encode(CODEC.wrap(answer, eventId, Instant.now(), "inventory-service", null)));
        return eventId;
    }

    /** Publishes {@code value} as it is, keyed by {@code key}: a duplicate, or a record no reader can decode. */
    public static void publish(String key, byte[] value) {
        try (KafkaProducer<String, byte[]> producer = new KafkaProducer<>(
                Map.of(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, BrokerResource.bootstrapServers()),
                new StringSerializer(),
                new ByteArraySerializer())) {
            producer.send(new ProducerRecord<>(Topics.INVENTORY, key, value)).get(30, TimeUnit.SECONDS);
        } catch (ExecutionException | TimeoutException e) {
            throw new IllegalStateException("cannot publish to " + Topics.INVENTORY, e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    /** The order's status as the API shows it, once it is {@code status} (30 s at most). */
    public static void awaitStatus(UUID orderId, String status) {
        await().atMost(Duration.ofSeconds(30))
                .until(() -> status.equals(
                        given().get("/orders/" + orderId).then().extract().path("status")));
    }
}
