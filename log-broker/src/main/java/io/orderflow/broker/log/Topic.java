package io.orderflow.broker.log;

import java.util.Map;
import java.util.UUID;

/**
 * A topic as the broker knows it: its name, its stable id (Kafka's topic id, a UUID that survives restarts
 * and changes when a topic is deleted and re-created), its partition count and the configuration it
 * overrides. {@link #config()} is the broker's defaults with the overrides applied.
 */
public record Topic(String name, UUID id, int partitions, Map<String, String> overrides, LogConfig config) {
    public Topic {
        overrides = Map.copyOf(overrides);
    }

    /** Kafka's naming rule: 1-249 of [a-zA-Z0-9._-], not "." or "..". */
    public static void validateName(String name) {
        if (name == null || name.isEmpty() || name.equals(".") || name.equals("..")) {
            throw new TopicException(
                    TopicException.Reason.INVALID_NAME, name, "Topic name " + name + " is empty, \".\" or \"..\"");
        }
        if (name.length() > 249) {
            throw new TopicException(
                    TopicException.Reason.INVALID_NAME,
                    name,
                    "Topic name of " + name.length() + " characters is longer than 249");
        }
        for (int i = 0; i < name.length(); i++) {
            char c = name.charAt(i);
            boolean ok = (c >= 'a' && c <= 'z')
                    || (c >= 'A' && c <= 'Z')
                    || (c >= '0' && c <= '9')
                    || c == '.'
                    || c == '_'
                    || c == '-';
            if (!ok) {
                throw new TopicException(
                        TopicException.Reason.INVALID_NAME,
                        name,
                        "Topic name " + name + " contains '" + c
                                + "'; only a-z, A-Z, 0-9, '.', '_' and '-' are allowed");
            }
        }
    }
}
