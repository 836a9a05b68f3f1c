package io.orderflow.relay;

import io.orderflow.contracts.EventCodec;
import io.orderflow.contracts.EventEnvelope;
import io.orderflow.contracts.EventHeaders;
import io.orderflow.contracts.UndecodableEventException;
import io.orderflow.outbox.OutboxRow;
import java.nio.charset.StandardCharsets;
import java.util.Optional;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.header.internals.RecordHeaders;

/**
 * Turns outbox rows into Kafka records, and says which rows can never be published.
 *
 * <p>A record is keyed by the order id (so one order's events share a partition and keep their order), its value
 * is the stored envelope byte for byte, and its headers repeat the envelope's ids ({@link EventHeaders}) so
 * routing and tracing need not parse the value. A row is refused, with a reason, if its payload is not an event
 * envelope, if the envelope disagrees with the row's columns (another event id, order, type or version), or if the
 * record would exceed the largest record the relay may send: retrying would never help. The check reads only the
 * envelope, not the payload schema, so a relay older than the order service still relays new event types.
 *
 * <p>Thread-safe (immutable).
 */
public final class OutboxRecords {

    /** Record framing beyond key, value and headers, rounded up: what a v2 batch adds for one record. */
    private static final int RECORD_OVERHEAD_BYTES = 128;

    private final String topic;
    private final int maxRecordBytes;
    private final EventCodec codec = new EventCodec();

    public OutboxRecords(String topic, int maxRecordBytes) {
        this.topic = topic;
        this.maxRecordBytes = maxRecordBytes;
    }

    /** Why {@code row} can never be published, or empty if it can. */
    public Optional<String> refusal(OutboxRow row) {
        byte[] value = row.entry().payload().getBytes(StandardCharsets.UTF_8);
        EventEnvelope envelope;
        try {
            envelope = codec.decode(value);
        } catch (UndecodableEventException e) {
            return Optional.of("payload is not an event envelope: " + e.getMessage());
        }
        if (!envelope.eventId().equals(row.entry().eventId())) {
            return Optional.of("envelope eventId " + envelope.eventId() + " differs from the row's "
                    + row.entry().eventId());
        }
        if (!envelope.orderId().equals(row.entry().aggregateId())) {
            return Optional.of("envelope orderId " + envelope.orderId() + " differs from the row's "
                    + row.entry().aggregateId());
        }
        if (!envelope.eventType().equals(row.entry().eventType())
                || !envelope.eventVersion().toString().equals(row.entry().eventVersion())) {
            return Optional.of(
                    "envelope says " + envelope.eventType() + " " + envelope.eventVersion() + ", the row says "
                            + row.entry().eventType() + " " + row.entry().eventVersion());
        }
        int size = recordSize(row, value.length);
        if (size > maxRecordBytes) {
            return Optional.of("record of " + size + " bytes exceeds the relay's limit of " + maxRecordBytes
                    + " bytes (orderflow.outbox-relay.max-record-bytes)");
        }
        return Optional.empty();
    }

    /** The record for a row that {@link #refusal} accepted, with the row's stored trace context. */
    public ProducerRecord<String, byte[]> toRecord(OutboxRow row) {
        return toRecord(row, row.entry().traceparent());
    }

    /**
     * The record for a row that {@link #refusal} accepted, carrying {@code traceparent} (the publish span's context, of
     * the same length as the row's) or none when null.
     */
    public ProducerRecord<String, byte[]> toRecord(OutboxRow row, String traceparent) {
        RecordHeaders headers = new RecordHeaders();
        headers.add(EventHeaders.EVENT_ID, utf8(row.entry().eventId().toString()));
        headers.add(EventHeaders.EVENT_TYPE, utf8(row.entry().eventType()));
        headers.add(EventHeaders.EVENT_VERSION, utf8(row.entry().eventVersion()));
        if (traceparent != null) {
            headers.add(EventHeaders.TRACEPARENT, utf8(traceparent));
        }
        return new ProducerRecord<>(
                topic, null, row.entry().aggregateId(), utf8(row.entry().payload()), headers);
    }

    private static int recordSize(OutboxRow row, int valueBytes) {
        int headers = EventHeaders.EVENT_ID.length()
                + 36
                + EventHeaders.EVENT_TYPE.length()
                + utf8(row.entry().eventType()).length
                + EventHeaders.EVENT_VERSION.length()
                + utf8(row.entry().eventVersion()).length
                + (row.entry().traceparent() == null
                        ? 0
                        : EventHeaders.TRACEPARENT.length()
                                + row.entry().traceparent().length());
        return RECORD_OVERHEAD_BYTES + utf8(row.entry().aggregateId()).length + valueBytes + headers;
    }

    private static byte[] utf8(String text) {
        return text.getBytes(StandardCharsets.UTF_8);
    }
}
