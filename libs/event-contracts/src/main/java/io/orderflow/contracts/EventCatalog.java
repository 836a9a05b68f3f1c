package io.orderflow.contracts;

import io.orderflow.contracts.inventory.InventoryRejected;
import io.orderflow.contracts.inventory.InventoryReserved;
import io.orderflow.contracts.order.OrderCancelled;
import io.orderflow.contracts.order.OrderConfirmed;
import io.orderflow.contracts.order.OrderCreated;
import io.orderflow.contracts.order.OrderEvent;
import io.orderflow.contracts.order.OrderPaid;
import io.orderflow.contracts.order.OrderRejected;
import io.orderflow.contracts.order.OrderShipped;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * The event types a reader knows, by wire name and by payload record. This is the one table that ties a name and
 * version on the wire to Java code; adding a version starts here (see the module README).
 *
 * <p>{@link #orderEvents()} is the catalogue of this build. Other instances exist to model other readers, e.g. a
 * consumer built against an older release. Immutable and thread-safe.
 */
public final class EventCatalog {

    public static final EventType<OrderCreated> ORDER_CREATED =
            new EventType<>("OrderCreated", OrderCreated.class, List.of(EventVersion.V1_0, EventVersion.V1_1));
    public static final EventType<OrderPaid> ORDER_PAID =
            new EventType<>("OrderPaid", OrderPaid.class, List.of(EventVersion.V1_0));
    public static final EventType<OrderShipped> ORDER_SHIPPED =
            new EventType<>("OrderShipped", OrderShipped.class, List.of(EventVersion.V1_0));
    public static final EventType<OrderCancelled> ORDER_CANCELLED =
            new EventType<>("OrderCancelled", OrderCancelled.class, List.of(EventVersion.V1_0));
    public static final EventType<OrderConfirmed> ORDER_CONFIRMED =
            new EventType<>("OrderConfirmed", OrderConfirmed.class, List.of(EventVersion.V1_0));
    public static final EventType<OrderRejected> ORDER_REJECTED =
            new EventType<>("OrderRejected", OrderRejected.class, List.of(EventVersion.V1_0));

    public static final EventType<InventoryReserved> INVENTORY_RESERVED =
            new EventType<>("InventoryReserved", InventoryReserved.class, List.of(EventVersion.V1_0));
    public static final EventType<InventoryRejected> INVENTORY_REJECTED =
            new EventType<>("InventoryRejected", InventoryRejected.class, List.of(EventVersion.V1_0));

    private static final EventCatalog ORDER_EVENTS = new EventCatalog(
            List.of(ORDER_CREATED, ORDER_PAID, ORDER_SHIPPED, ORDER_CANCELLED, ORDER_CONFIRMED, ORDER_REJECTED));
    private static final EventCatalog INVENTORY_EVENTS =
            new EventCatalog(List.of(INVENTORY_RESERVED, INVENTORY_REJECTED));

    private final Map<String, EventType<?>> byName = new LinkedHashMap<>();
    private final Map<Class<?>, EventType<?>> byPayloadType = new LinkedHashMap<>();

    public EventCatalog(List<EventType<?>> types) {
        for (EventType<?> type : types) {
            if (byName.putIfAbsent(type.name(), type) != null) {
                throw new IllegalArgumentException("event type " + type.name() + " is catalogued twice");
            }
            if (byPayloadType.putIfAbsent(type.payloadType(), type) != null) {
                throw new IllegalArgumentException(
                        "payload type " + type.payloadType().getName() + " is catalogued twice");
            }
        }
    }

    /**
     * The order events of this build: OrderCreated 1.0 and 1.1; OrderPaid, OrderShipped, OrderCancelled, and the
     * saga's OrderConfirmed and OrderRejected, 1.0.
     */
    public static EventCatalog orderEvents() {
        return ORDER_EVENTS;
    }

    /** inventory-service's outcomes, on the {@code inventory} topic: InventoryReserved and InventoryRejected 1.0. */
    public static EventCatalog inventoryEvents() {
        return INVENTORY_EVENTS;
    }

    /** All types, in the order they were catalogued. */
    public List<EventType<?>> types() {
        return List.copyOf(byName.values());
    }

    public Optional<EventType<?>> find(String eventType) {
        return Optional.ofNullable(byName.get(eventType));
    }

    /** The type whose payload record is {@code event}'s class; {@link IllegalArgumentException} if none. */
    @SuppressWarnings("unchecked")
    public <T extends OrderEvent> EventType<T> typeOf(T event) {
        EventType<?> type = byPayloadType.get(event.getClass());
        if (type == null) {
            throw new IllegalArgumentException("no event type is catalogued for payload "
                    + event.getClass().getName() + "; known: " + byName.keySet());
        }
        return (EventType<T>) type;
    }
}
