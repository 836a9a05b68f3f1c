package io.orderflow.ops.drill;

import io.orderflow.contracts.EventCodec;
import io.orderflow.contracts.EventEnvelope;
import io.orderflow.contracts.Topics;
import io.orderflow.kafka.KafkaClientSettings;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import org.apache.kafka.clients.consumer.ConsumerRecord;

/**
 * The order events on {@code orders} from a point in time on, read back through the Kafka protocol as the drills'
 * principal ({@link TopicRecords}): per order, its distinct events (by event id) with their types, in log order. A
 * relay may publish one event twice (after a crash between the broker's acknowledgement and marking its row
 * published): that is one event here, counted once, though {@link #records()} counts both records. Two different
 * events of one type for one order are not one: for order-service's answers (OrderConfirmed, OrderRejected) that would
 * be inventory's answer applied twice.
 *
 * <p>Records the platform's consumers cannot read, and dead-letter, are left out: a poison record a drill wrote (not an
 * envelope), an event of a major version they do not read or of a type they do not know. Immutable once read.
 */
public final class OrderTopicEvents {

    /** order-service's answers to inventory's outcome, one of which each order gets once. */
    public static final Set<String> ANSWERS = Set.of("OrderConfirmed", "OrderRejected");

    /**
     * One event: its id, type, when it occurred (the minute analytics-service counts it in), and for an {@code
     * OrderCreated} the customer who placed the order (else null).
     */
    public record Event(UUID eventId, String type, java.time.Instant occurredAt, String customerId) {}

    private final Map<String, Map<UUID, Event>> byOrder;
    private final int records;

    private OrderTopicEvents(Map<String, Map<UUID, Event>> byOrder, int records) {
        this.byOrder = byOrder;
        this.records = records;
    }

    /**
     * The events on {@code orders} whose records are timestamped {@code sinceMillis} or later, up to the topic's end
     * offsets at the call.
     *
     * @throws IllegalStateException if the topic cannot be read within {@code within}
     */
    public static OrderTopicEvents since(KafkaClientSettings cluster, long sinceMillis, Duration within) {
        EventCodec codec = new EventCodec();
        Map<String, Map<UUID, Event>> byOrder = new LinkedHashMap<>();
        int records = 0;
        for (ConsumerRecord<byte[], byte[]> record : TopicRecords.since(cluster, Topics.ORDERS, sinceMillis, within)) {
            EventEnvelope envelope;
            try {
                envelope = codec.decode(record.value());
                codec.decodePayload(envelope);
            } catch (RuntimeException unreadable) {
                continue; // every consumer dead-letters it: no event of the platform's
            }
            records++;
            String customer = envelope.eventType().equals("OrderCreated")
                    ? envelope.payload().path("customerId").asText(null)
                    : null;
            byOrder.computeIfAbsent(envelope.orderId(), order -> new LinkedHashMap<>())
                    .putIfAbsent(
                            envelope.eventId(),
                            new Event(envelope.eventId(), envelope.eventType(), envelope.occurredAt(), customer));
        }
        return new OrderTopicEvents(byOrder, records);
    }

    /**
     * The events since {@code sinceMillis} once each of {@code orders} has order-service's answer (OrderConfirmed or
     * OrderRejected) among them: the relay publishes an answer after order-service committed it, so the topic may
     * trail what {@code GET /orders/{id}} shows. Reads the topic again a second apart, reading the lag meanwhile.
     *
     * @throws IllegalStateException if some order has no answer on the topic within {@code within}
     */
    static OrderTopicEvents onceAnswered(
            KafkaClientSettings cluster, LagWatch lag, Collection<String> orders, long sinceMillis, Duration within)
            throws InterruptedException {
        OrderTopicEvents[] latest = {since(cluster, sinceMillis, within)};
        PlatformProbe.awaitWhileWatching(lag, within, () -> {
            if (orders.stream().allMatch(order -> !latest[0].of(order, ANSWERS).isEmpty())) {
                return true;
            }
            latest[0] = since(cluster, sinceMillis, within);
            return false;
        });
        return latest[0];
    }

    /** The orders that have events, in the log order of their first. */
    public Set<String> orders() {
        return java.util.Collections.unmodifiableSet(byOrder.keySet());
    }

    /** {@code order}'s distinct events, in log order (the first copy of each). */
    public List<Event> events(String order) {
        return List.copyOf(byOrder.getOrDefault(order, Map.of()).values());
    }

    /** The records read that were event envelopes, copies of one event counted each. */
    public int records() {
        return records;
    }

    /** The orders whose {@code OrderCreated} names {@code customer}, in log order. */
    Set<String> createdBy(String customer) {
        Set<String> orders = new LinkedHashSet<>();
        byOrder.forEach((order, events) -> {
            if (events.values().stream()
                    .anyMatch(event -> event.type().equals("OrderCreated") && customer.equals(event.customerId()))) {
                orders.add(order);
            }
        });
        return orders;
    }

    /** The types of {@code order}'s distinct events of one of {@code types}, in log order, one entry per event id. */
    List<String> of(String order, Set<String> types) {
        List<String> found = new ArrayList<>();
        for (Event event : byOrder.getOrDefault(order, Map.of()).values()) {
            if (types.contains(event.type())) {
                found.add(event.type());
            }
        }
        return found;
    }
}
