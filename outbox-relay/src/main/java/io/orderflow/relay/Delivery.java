package io.orderflow.relay;

import io.orderflow.outbox.OutboxRow;
import java.time.Instant;

/** What became of one row handed to the publisher. */
public sealed interface Delivery {

    OutboxRow row();

    /** The broker acknowledged the record ({@code acks=all}) at {@code at}. */
    record Acknowledged(OutboxRow row, Instant at) implements Delivery {}

    /** The record can never be delivered (the producer or broker refused it for good); {@code reason} says why. */
    record Refused(OutboxRow row, String reason) implements Delivery {}

    /** Not sent, or sent without an answer yet: the broker is unreachable or the relay is stopping. Try again. */
    record Pending(OutboxRow row) implements Delivery {}
}
