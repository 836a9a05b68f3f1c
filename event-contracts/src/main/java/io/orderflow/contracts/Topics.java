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

    private Topics() {}
}
