package io.orderflow.ops.load;

import io.orderflow.contracts.EventCatalog;
import io.orderflow.contracts.EventVersion;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * The share of new orders whose {@code OrderCreated} goes out at each version. order-service writes the catalogue's
 * current version ({@link #CURRENT}, 1.1); the REST API has no say in it, so the orders of every other version are
 * published on {@code orders} directly, as a producer not yet upgraded (1.0) or already on a breaking change (2.0)
 * would. Written {@code 1.0:0.2,1.1:0.8}; the shares add up to 1. Immutable.
 */
public record EventVersionMix(Map<EventVersion, Double> shares) {

    /** The version order-service writes. */
    public static final EventVersion CURRENT = EventCatalog.ORDER_CREATED.current();

    public EventVersionMix {
        shares = Map.copyOf(shares);
    }

    /** Every order through order-service. */
    public static EventVersionMix current() {
        return new EventVersionMix(Map.of(CURRENT, 1.0));
    }

    /**
     * Parses {@code VERSION:SHARE,...} with versions among 1.0, 1.1 and 2.0.
     *
     * @throws IllegalArgumentException naming what is wrong
     */
    public static EventVersionMix parse(String text) {
        Map<EventVersion, Double> shares = new LinkedHashMap<>();
        try {
            for (String part : text.split(",")) {
                String[] pair = part.strip().split(":");
                if (pair.length != 2) {
                    throw new IllegalArgumentException("'" + part + "' is not VERSION:SHARE");
                }
                EventVersion version = EventVersion.parse(pair[0].strip());
                if (!version.equals(EventVersion.V1_0)
                        && !version.equals(EventVersion.V1_1)
                        && !version.equals(OrderCreatedRecords.V2_0)) {
                    throw new IllegalArgumentException("OrderCreated " + version + " is not one of 1.0, 1.1, 2.0");
                }
                double share = Double.parseDouble(pair[1].strip());
                if (!(share >= 0 && share <= 1) || shares.put(version, share) != null) {
                    throw new IllegalArgumentException(
                            "each version once, with a share from 0 to 1; " + version + " had " + pair[1]);
                }
            }
        } catch (IllegalArgumentException e) { // NumberFormatException included
            throw new IllegalArgumentException("'" + text + "': " + e.getMessage() + " (e.g. 1.0:0.2,1.1:0.8)");
        }
        double total = shares.values().stream().mapToDouble(Double::doubleValue).sum();
        if (Math.abs(total - 1) > 1e-9) {
            throw new IllegalArgumentException("'" + text + "': the shares add up to " + total + ", not 1");
        }
        return new EventVersionMix(shares);
    }

    /** The share of orders that go through {@code POST /orders}. */
    public double viaOrderService() {
        return shares.getOrDefault(CURRENT, 0.0);
    }

    /** The versions published directly, with their shares (all but {@link #CURRENT}, none at 0). */
    public Map<EventVersion, Double> direct() {
        Map<EventVersion, Double> direct = new LinkedHashMap<>();
        shares.forEach((version, share) -> {
            if (!version.equals(CURRENT) && share > 0) {
                direct.put(version, share);
            }
        });
        return direct;
    }

    @Override
    public String toString() {
        StringBuilder text = new StringBuilder();
        shares.entrySet().stream()
                .sorted(Map.Entry.comparingByKey())
                .forEach(entry -> text.append(text.isEmpty() ? "" : ", ")
                        .append(entry.getKey())
                        .append(' ')
                        .append(Math.round(entry.getValue() * 100))
                        .append('%'));
        return text.toString();
    }
}
