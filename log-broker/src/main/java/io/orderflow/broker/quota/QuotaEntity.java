package io.orderflow.broker.quota;

import java.util.Collections;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;

/**
 * Who a client quota is for, as Kafka's protocol names it: a map from entity type ({@code user}, {@code client-id},
 * {@code ip}) to a name, where a null name is that type's default ({@code <default>} in {@code kafka-configs}). So
 * {@code {user=alice, client-id=null}} is "alice's clients that have no quota of their own".
 */
public record QuotaEntity(Map<String, String> parts) {
    public static final String USER = "user";
    public static final String CLIENT_ID = "client-id";
    public static final String IP = "ip";
    static final Set<String> TYPES = Set.of(USER, CLIENT_ID, IP);

    public QuotaEntity {
        parts = Collections.unmodifiableMap(new TreeMap<>(parts));
    }

    /** An entity of one part: {@code type} named {@code name}, or that type's default when {@code name} is null. */
    static QuotaEntity of(String type, String name) {
        Map<String, String> parts = new TreeMap<>();
        parts.put(type, name);
        return new QuotaEntity(parts);
    }

    /** A user's (or the default user's, when null) client id (or default client id, when null). */
    static QuotaEntity userAndClient(String user, String clientId) {
        Map<String, String> parts = new TreeMap<>();
        parts.put(USER, user);
        parts.put(CLIENT_ID, clientId);
        return new QuotaEntity(parts);
    }

    @Override
    public String toString() {
        StringBuilder out = new StringBuilder();
        parts.forEach((type, name) -> out.append(out.isEmpty() ? "" : ", ")
                .append(type)
                .append(' ')
                .append(name == null ? "<default>" : name));
        return out.toString();
    }
}
