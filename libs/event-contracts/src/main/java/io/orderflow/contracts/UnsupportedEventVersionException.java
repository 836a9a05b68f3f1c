package io.orderflow.contracts;

import java.util.UUID;

/**
 * The event type is known but its version has a major this reader does not read, usually a newer, breaking one. The
 * consumer must not guess at its meaning; it dead-letters the record until it is upgraded.
 */
public final class UnsupportedEventVersionException extends UndecodableEventException {

    private final UUID eventId;
    private final String eventType;
    private final EventVersion found;
    private final EventVersion highestSupported;

    public UnsupportedEventVersionException(
            UUID eventId, String eventType, EventVersion found, EventVersion highestSupported) {
        super(
                "event " + eventId + " of type " + eventType + " has version " + found + "; this reader reads major "
                        + highestSupported.major() + " (newest it knows: " + highestSupported + ")",
                null);
        this.eventId = eventId;
        this.eventType = eventType;
        this.found = found;
        this.highestSupported = highestSupported;
    }

    public UUID eventId() {
        return eventId;
    }

    public String eventType() {
        return eventType;
    }

    public EventVersion found() {
        return found;
    }

    public EventVersion highestSupported() {
        return highestSupported;
    }
}
