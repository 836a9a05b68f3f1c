package io.orderflow.contracts;

import io.orderflow.contracts.order.OrderEvent;
import java.util.List;
import java.util.Objects;

/**
 * One event type as this reader knows it: its name on the wire, the record its payload decodes into, and the versions
 * published so far, oldest first. The last one is {@link #current()}: what this code writes.
 *
 * <p>All versions of a type share one major, because one payload record can only read one shape. Any version of that
 * major is readable, including minors newer than {@link #current()}: they only add fields, which the reader ignores.
 *
 * @param <T> the payload record
 */
public record EventType<T extends OrderEvent>(String name, Class<T> payloadType, List<EventVersion> versions) {

    public EventType {
        if (name == null || name.isBlank()) {
            throw new IllegalArgumentException("event type name is required");
        }
        if (payloadType == null) {
            throw new IllegalArgumentException("payload type of " + name + " is required");
        }
        if (versions == null || versions.isEmpty() || versions.stream().anyMatch(Objects::isNull)) {
            throw new IllegalArgumentException(name + " needs at least one version, and no null ones");
        }
        versions = List.copyOf(versions);
        for (int i = 1; i < versions.size(); i++) {
            EventVersion previous = versions.get(i - 1);
            EventVersion next = versions.get(i);
            if (previous.compareTo(next) >= 0 || !previous.sameMajorAs(next)) {
                throw new IllegalArgumentException(name + " versions must ascend within one major, got " + versions);
            }
        }
    }

    /** The newest version this code knows, and the one it writes. */
    public EventVersion current() {
        return versions.getLast();
    }

    /** True when this reader can decode a payload of {@code version}: same major as {@link #current()}. */
    public boolean reads(EventVersion version) {
        return current().sameMajorAs(version);
    }
}
