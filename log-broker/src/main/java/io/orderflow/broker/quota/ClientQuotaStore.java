package io.orderflow.broker.quota;

import io.orderflow.broker.log.LineFile;
import io.orderflow.broker.log.LogFiles;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.EnumSet;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.TreeMap;

/**
 * Every client quota set with AlterClientQuotas ({@code kafka-configs --alter --entity-type clients|users}), kept
 * in one file ({@code client-quotas} in the broker's quota directory), one line per entity and key: the entity's
 * parts ({@code type} for a default, {@code type:name} with the name in base64url), the key and the value. Each
 * change rewrites the file whole ({@link LineFile#replace}: fsync, rename, directory fsync) before it is
 * answered, so an acknowledged quota survives kill -9 and power loss.
 *
 * <p>Validation follows Apache Kafka's controller: known entity types, no empty names, IP entities alone, known
 * keys, values greater than 0 and whole for the byte rates. Two of Kafka's keys are refused because this broker does
 * not enforce them, rather than stored and ignored: {@code controller_mutation_rate} and an IP entity's {@code
 * connection_creation_rate} ({@code max.connections.per.ip} bounds connections by IP instead).
 *
 * <p>Thread-safety: reads see an immutable snapshot and take no lock; changes are serialised.
 */
public final class ClientQuotaStore {
    static final String FILE = "client-quotas";

    /** Keys Kafka accepts that this broker refuses, with the reason it gives. */
    private static final Map<String, String> NOT_ENFORCED = Map.of(
            "controller_mutation_rate",
            "controller_mutation_rate is not enforced by this broker; it is refused rather than stored and ignored",
            "connection_creation_rate",
            "connection_creation_rate is not enforced by this broker; max.connections.per.ip bounds connections"
                    + " by IP");

    /** Null for a store {@link #inMemory in memory}. */
    private final LineFile file;

    private volatile Map<QuotaEntity, Map<String, Double>> quotas;
    /** The types some entity has a quota of: read on every request, so kept beside the snapshot, not searched. */
    private volatile Set<QuotaType> typesSet;

    private ClientQuotaStore(LineFile file, Map<QuotaEntity, Map<String, Double>> quotas) {
        this.file = file;
        this.quotas = quotas;
        this.typesSet = typesIn(quotas);
    }

    private static Set<QuotaType> typesIn(Map<QuotaEntity, Map<String, Double>> quotas) {
        Set<QuotaType> types = EnumSet.noneOf(QuotaType.class);
        quotas.values()
                .forEach(values ->
                        values.keySet().forEach(key -> QuotaType.forKey(key).ifPresent(types::add)));
        return types;
    }

    /** Opens the store in {@code directory}, creating it empty when there is none. */
    public static ClientQuotaStore open(Path directory, LogFiles files) throws IOException {
        LineFile file = LineFile.in(directory, FILE, "client quota", 3, files);
        Map<QuotaEntity, Map<String, Double>> quotas = new HashMap<>();
        file.forEachRecord(
                f -> quotas.computeIfAbsent(entity(f[0]), e -> new TreeMap<>()).put(f[1], Double.parseDouble(f[2])));
        return new ClientQuotaStore(file, freeze(quotas));
    }

    /** A store that keeps its quotas in memory only: for tests, and for a broker part built without quotas. */
    public static ClientQuotaStore inMemory() {
        return new ClientQuotaStore(null, Map.of());
    }

    /** An alteration of one entity: each key to its new value, or to null to remove it. */
    public record Alteration(QuotaEntity entity, Map<String, Double> changes) {
        public Alteration {
            changes = Collections.unmodifiableMap(new LinkedHashMap<>(changes));
        }
    }

    /** Every entity with a quota, and its values by key. */
    public Map<QuotaEntity, Map<String, Double>> quotas() {
        return quotas;
    }

    /** The value of {@code type}'s key for exactly {@code entity}, or null. */
    Double value(QuotaEntity entity, QuotaType type) {
        Map<String, Double> values = quotas.get(entity);
        return values == null ? null : values.get(type.key());
    }

    /** Whether any entity has a quota of {@code type}. */
    boolean any(QuotaType type) {
        return typesSet.contains(type);
    }

    /**
     * Checks an alteration as Apache Kafka's controller does.
     *
     * @throws InvalidQuotaException with Kafka's message when it is refused
     */
    public static void validate(Alteration alteration) {
        Map<String, String> parts = alteration.entity().parts();
        if (parts.isEmpty()) {
            throw new InvalidQuotaException("Invalid empty client quota entity");
        }
        for (Map.Entry<String, String> part : parts.entrySet()) {
            if (!QuotaEntity.TYPES.contains(part.getKey())) {
                throw new InvalidQuotaException("Unhandled client quota entity type: " + part.getKey());
            }
            if (part.getValue() != null && part.getValue().isEmpty()) {
                throw new InvalidQuotaException("Empty " + part.getKey() + " not supported");
            }
        }
        if (parts.containsKey(QuotaEntity.IP)) {
            if (parts.size() > 1) {
                throw new InvalidQuotaException(
                        "Invalid quota entity combination, IP entity should not be combined with User or ClientId");
            }
        }
        for (Map.Entry<String, Double> change : alteration.changes().entrySet()) {
            String key = change.getKey();
            Double value = change.getValue();
            if (NOT_ENFORCED.containsKey(key) && value != null) {
                throw new InvalidQuotaException(NOT_ENFORCED.get(key));
            }
            if (value == null) {
                continue; // removing a key that is not there changes nothing, as in Kafka
            }
            QuotaType type = QuotaType.forKey(key)
                    .filter(t -> !parts.containsKey(QuotaEntity.IP))
                    .orElseThrow(() -> new InvalidQuotaException("Invalid configuration key " + key));
            if (!(value > 0.0)) {
                throw new InvalidQuotaException("Quota " + key + " must be greater than 0");
            }
            if (type.integral()) {
                if (value > Long.MAX_VALUE) {
                    throw new InvalidQuotaException("Proposed value for " + key + " is too large for a LONG.");
                }
                if (Math.abs(value % 1.0) > 1e-6) {
                    throw new InvalidQuotaException(key + " cannot be a fractional value.");
                }
            }
        }
    }

    /**
     * Applies alterations that passed {@link #validate} and makes the result durable before returning.
     *
     * @throws UncheckedIOException when the file cannot be written; nothing changed then
     */
    public synchronized void change(List<Alteration> alterations) {
        Map<QuotaEntity, Map<String, Double>> next = new HashMap<>();
        quotas.forEach((entity, values) -> next.put(entity, new TreeMap<>(values)));
        for (Alteration alteration : alterations) {
            Map<String, Double> values = next.computeIfAbsent(alteration.entity(), e -> new TreeMap<>());
            alteration.changes().forEach((key, value) -> {
                if (value == null) {
                    values.remove(key);
                } else {
                    values.put(key, value);
                }
            });
            if (values.isEmpty()) {
                next.remove(alteration.entity());
            }
        }
        if (file != null) {
            file.replace(lines(next));
        }
        Map<QuotaEntity, Map<String, Double>> frozen = freeze(next);
        quotas = frozen;
        typesSet = typesIn(frozen);
    }

    /**
     * The entities that match a DescribeClientQuotas filter, as Kafka matches them: each type in {@code exact} is
     * present with that name (null: the default), each type in {@code specified} is present with any name, and when
     * {@code strict} the entity has no other parts.
     */
    public Map<QuotaEntity, Map<String, Double>> describe(
            Map<String, String> exact, Set<String> specified, boolean strict) {
        Map<QuotaEntity, Map<String, Double>> matched = new LinkedHashMap<>();
        quotas.forEach((entity, values) -> {
            Map<String, String> parts = entity.parts();
            boolean matches = !strict || parts.size() == exact.size() + specified.size();
            for (Map.Entry<String, String> e : exact.entrySet()) {
                matches &= parts.containsKey(e.getKey()) && Objects.equals(parts.get(e.getKey()), e.getValue());
            }
            for (String type : specified) {
                matches &= parts.containsKey(type);
            }
            if (matches) {
                matched.put(entity, values);
            }
        });
        return matched;
    }

    /** An entity's field: its parts joined by commas, {@code type} for a default, {@code type:name} otherwise. */
    private static QuotaEntity entity(String field) {
        Map<String, String> parts = new TreeMap<>();
        for (String part : field.split(",")) {
            int colon = part.indexOf(':');
            parts.put(
                    colon < 0 ? part : part.substring(0, colon),
                    colon < 0 ? null : LineFile.decode(part.substring(colon + 1)));
        }
        return new QuotaEntity(parts);
    }

    private static List<String> lines(Map<QuotaEntity, Map<String, Double>> quotas) {
        List<String> lines = new ArrayList<>();
        quotas.forEach((entity, values) -> {
            List<String> parts = new ArrayList<>();
            entity.parts().forEach((type, name) -> parts.add(name == null ? type : type + ":" + LineFile.encode(name)));
            values.forEach((key, value) -> lines.add(String.join(",", parts) + " " + key + " " + value));
        });
        Collections.sort(lines);
        return lines;
    }

    private static Map<QuotaEntity, Map<String, Double>> freeze(Map<QuotaEntity, Map<String, Double>> quotas) {
        Map<QuotaEntity, Map<String, Double>> frozen = new HashMap<>();
        quotas.forEach((entity, values) -> frozen.put(entity, Collections.unmodifiableMap(new TreeMap<>(values))));
        return Collections.unmodifiableMap(frozen);
    }
}
