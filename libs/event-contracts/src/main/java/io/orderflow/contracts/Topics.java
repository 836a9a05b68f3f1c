package io.orderflow.contracts;

/**
 * Topic names of the order platform.
 *
 * <p>{@link #ORDERS} carries every order event, keyed by {@link EventEnvelope#orderId()} encoded as UTF-8. One key per
 * order puts all events of an order in one partition, so consumers see them in the order they were produced.
 */
public final class Topics {

    /** All order events; record key = the order id (UTF-8), record value = an encoded {@link EventEnvelope}. */
    public static final String ORDERS = "orders";

    /**
     * inventory-service's outcomes ({@link EventCatalog#inventoryEvents()}), keyed like {@link #ORDERS} by the order
     * id, so that an order's reservation outcome and its order events share a partition number.
     */
    public static final String INVENTORY = "inventory";

    private Topics() {}
}
