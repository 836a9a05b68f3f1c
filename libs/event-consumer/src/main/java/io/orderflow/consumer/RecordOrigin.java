package io.orderflow.consumer;

import java.util.Objects;

/**
 * Where an event first arrived: the topic, partition and offset of the original record (in {@code orders}), which its
 * retry and dead-letter copies name in their headers. It is a dead letter's stable identity: however often a record
 * is retried, dead-lettered, re-driven or replayed, its copies share one origin. Written {@code orders-3@1207}.
 */
public record RecordOrigin(String topic, int partition, long offset) {

    public RecordOrigin {
        Objects.requireNonNull(topic, "topic");
    }

    @Override
    public String toString() {
        return topic + "-" + partition + "@" + offset;
    }

    /** The text {@link #toString} writes, read back; topic names may contain '-' but never '@'. */
    public static RecordOrigin parse(String text) {
        int at = text.lastIndexOf('@');
        int dash = at < 0 ? -1 : text.lastIndexOf('-', at);
        if (dash <= 0) {
            throw new IllegalArgumentException("not a record origin (topic-partition@offset): " + text);
        }
        try {
            return new RecordOrigin(
                    text.substring(0, dash),
                    Integer.parseInt(text.substring(dash + 1, at)),
                    Long.parseLong(text.substring(at + 1)));
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException("not a record origin (topic-partition@offset): " + text, e);
        }
    }
}
