package io.orderflow.contracts.order;

/**
 * The payload of an event about one order. Every payload names its order, and the codec checks that it is the order
 * the envelope is keyed by.
 *
 * <p>Deliberately not sealed: consumers must already cope with event types they do not handle (a newer producer may
 * publish one), so a {@code switch} over order events needs a default branch anyway; and a consumer, or a test, may
 * read payloads into its own records, such as an older revision of {@link OrderCreated}.
 */
public interface OrderEvent {

    String orderId();
}
