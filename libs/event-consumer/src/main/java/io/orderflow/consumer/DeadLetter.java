package io.orderflow.consumer;

import java.util.Optional;
import org.apache.kafka.clients.consumer.ConsumerRecord;

/**
 * A record of a dead-letter topic, read through its headers ({@link FailureHeaders}): the original record it stands
 * for ({@link #origin}), how many re-drives it went through before it failed this time ({@link #redrives}), and why.
 * A record someone wrote to the topic without those headers is its own origin.
 */
public record DeadLetter(ConsumerRecord<String, byte[]> record, RecordOrigin origin, int redrives, String reason) {

    public static DeadLetter of(ConsumerRecord<String, byte[]> record) {
        RecordOrigin self = new RecordOrigin(record.topic(), record.partition(), record.offset());
        return new DeadLetter(record, originOf(record).orElse(self), redrivesOf(record), reasonOf(record));
    }

    /** Where this copy sits in the dead-letter topic, written like an origin. */
    public RecordOrigin position() {
        return new RecordOrigin(record.topic(), record.partition(), record.offset());
    }

    /** The origin the dead-letter headers name, if they name one that reads. */
    static Optional<RecordOrigin> originOf(ConsumerRecord<?, ?> record) {
        Optional<String> topic = FailureRouting.text(record.headers(), FailureHeaders.DEAD_LETTER_TOPIC);
        Optional<String> partition = FailureRouting.text(record.headers(), FailureHeaders.DEAD_LETTER_PARTITION);
        Optional<String> offset = FailureRouting.text(record.headers(), FailureHeaders.DEAD_LETTER_OFFSET);
        if (topic.isEmpty() || partition.isEmpty() || offset.isEmpty()) {
            return Optional.empty();
        }
        try {
            return Optional.of(new RecordOrigin(
                    topic.get(),
                    Integer.parseInt(partition.get().trim()),
                    Long.parseLong(offset.get().trim())));
        } catch (NumberFormatException e) {
            return Optional.empty();
        }
    }

    /** The {@link FailureHeaders#REDRIVE_COUNT} header: 0 when absent or not a count. */
    static int redrivesOf(ConsumerRecord<?, ?> record) {
        try {
            return Math.max(
                    0,
                    Integer.parseInt(FailureRouting.text(record.headers(), FailureHeaders.REDRIVE_COUNT)
                            .orElse("0")
                            .trim()));
        } catch (NumberFormatException e) {
            return 0;
        }
    }

    private static String reasonOf(ConsumerRecord<?, ?> record) {
        return FailureRouting.text(record.headers(), FailureHeaders.DEAD_LETTER_REASON)
                .orElse("(no reason header)");
    }
}
