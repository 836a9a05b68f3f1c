package io.orderflow.contracts;

import java.util.Set;
import java.util.UUID;

/**
 * The envelope is well formed but names an event type this reader's {@link EventCatalog} does not know, typically one
 * added by a newer producer. The consumer cannot interpret it, and skips it: a producer may publish a new type before
 * every consumer knows it, and dead-lettering it in each consumer that predates the type would only fill their
 * dead-letter topics.
 */
public final class UnknownEventTypeException extends UndecodableEventException {

    private final UUID eventId;
    private final String eventType;
    private final Set<String> knownTypes;

    public UnknownEventTypeException(UUID eventId, String eventType, Set<String> knownTypes) {
        super(
                "event " + eventId + " has unknown type \"" + eventType + "\"; this reader knows "
                        + knownTypes.stream().sorted().toList(),
                null);
        this.eventId = eventId;
        this.eventType = eventType;
        this.knownTypes = Set.copyOf(knownTypes);
    }

    public UUID eventId() {
        return eventId;
    }

    public String eventType() {
        return eventType;
    }

    public Set<String> knownTypes() {
        return knownTypes;
    }
}
