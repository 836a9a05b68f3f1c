package io.orderflow.inventory;

import io.orderflow.contracts.inventory.InventoryRejected;
import io.orderflow.contracts.inventory.InventoryReserved;
import io.orderflow.contracts.inventory.ReservedLine;
import io.orderflow.contracts.order.OrderCreated;
import io.orderflow.contracts.order.OrderEvent;
import io.orderflow.contracts.order.OrderLine;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.SortedMap;
import java.util.TreeMap;

/**
 * One batch's reservation decisions, made in memory in event order from the state {@link InventoryLedger} read under
 * its locks: the reservation status of each of the batch's orders with the lines it holds, and the stock of every SKU
 * the batch touches. It records what changed, for the ledger to write back, and returns the outcome event
 * an {@code OrderCreated} publishes. The states and transitions are the {@code reservations} table's (V1 migration);
 * the stock table's checks hold because a line is reserved only when that many units are available. Not thread-safe:
 * one batch, one thread.
 */
final class ReservationBook {

    static final String RESERVED = "RESERVED";
    static final String REJECTED = "REJECTED";
    static final String RELEASED = "RELEASED";
    static final String DEDUCTED = "DEDUCTED";
    static final String CANCELLED_FIRST = "CANCELLED_FIRST";
    static final String SHIPPED_FIRST = "SHIPPED_FIRST";

    /** A SKU's units in the warehouse and how many of them are held for orders. */
    record Stock(int onHand, int reserved) {
        int available() {
            return onHand - reserved;
        }
    }

    /**
     * An order's new reservation row: its status, the reason and short SKUs of a rejection, and the units of each SKU
     * the order holds or held (in SKU order; empty when it never reserved any).
     */
    record Decision(String status, String reason, List<String> shortSkus, SortedMap<String, Integer> lines) {}

    private final Map<String, String> statuses;
    private final Map<String, SortedMap<String, Integer>> lines;
    private final Map<String, Stock> stock;
    private final Map<String, Decision> changed = new LinkedHashMap<>();
    private final Map<String, Stock> changedStock = new TreeMap<>();

    /**
     * @param statuses the reservation status of each order that has one (taken over and updated)
     * @param lines the lines of each order that has reserved units, held or since released or deducted (taken over
     *     and updated)
     * @param stock every existing SKU the batch's events name, and every SKU a {@code RESERVED} order holds (taken
     *     over and updated)
     */
    ReservationBook(
            Map<String, String> statuses, Map<String, SortedMap<String, Integer>> lines, Map<String, Stock> stock) {
        this.statuses = statuses;
        this.lines = lines;
        this.stock = stock;
    }

    /**
     * Reserves every line of {@code order} or none; returns the outcome to publish, or empty when the order was
     * decided before (another {@code OrderCreated} of it changes nothing). A cancellation that came first makes it a
     * rejection; a shipment that came first deducts the units at once.
     */
    Optional<OrderEvent> created(OrderCreated order) {
        String orderId = order.orderId();
        String status = statuses.get(orderId);
        if (status != null && !status.equals(SHIPPED_FIRST)) {
            if (status.equals(CANCELLED_FIRST)) {
                String reason = "cancelled before it was reserved";
                decide(orderId, REJECTED, reason, List.of());
                return Optional.of(new InventoryRejected(orderId, reason, List.of()));
            }
            return Optional.empty();
        }
        SortedMap<String, Integer> wanted = new TreeMap<>();
        for (OrderLine line : order.items()) {
            wanted.merge(line.sku(), line.quantity(), Integer::sum);
        }
        List<String> shortSkus = new ArrayList<>();
        wanted.forEach((sku, quantity) -> {
            Stock units = stock.get(sku);
            if (units == null || units.available() < quantity) {
                shortSkus.add(sku);
            }
        });
        if (!shortSkus.isEmpty()) {
            String reason = ShortStockReason.of(shortSkus);
            decide(orderId, REJECTED, reason, shortSkus);
            return Optional.of(new InventoryRejected(orderId, reason, shortSkus));
        }
        boolean shippedFirst = status != null;
        lines.put(orderId, wanted);
        decide(orderId, shippedFirst ? DEDUCTED : RESERVED, null, List.of());
        wanted.forEach((sku, quantity) -> {
            Stock units = stock.get(sku);
            setStock(
                    sku,
                    shippedFirst
                            ? new Stock(units.onHand() - quantity, units.reserved())
                            : new Stock(units.onHand(), units.reserved() + quantity));
        });
        return Optional.of(new InventoryReserved(
                orderId,
                wanted.entrySet().stream()
                        .map(e -> new ReservedLine(e.getKey(), e.getValue()))
                        .toList()));
    }

    /** Releases a reservation; remembers a cancellation that comes before its order. */
    void cancelled(String orderId) {
        String status = statuses.get(orderId);
        if (status == null) {
            decide(orderId, CANCELLED_FIRST, null, List.of());
        } else if (status.equals(RESERVED)) {
            lines.get(orderId).forEach((sku, quantity) -> {
                Stock units = stock.get(sku);
                setStock(sku, new Stock(units.onHand(), units.reserved() - quantity));
            });
            decide(orderId, RELEASED, null, List.of());
        }
    }

    /** Turns a reservation into a deduction; remembers a shipment that comes before its order. */
    void shipped(String orderId) {
        String status = statuses.get(orderId);
        if (status == null) {
            decide(orderId, SHIPPED_FIRST, null, List.of());
        } else if (status.equals(RESERVED)) {
            lines.get(orderId).forEach((sku, quantity) -> {
                Stock units = stock.get(sku);
                setStock(sku, new Stock(units.onHand() - quantity, units.reserved() - quantity));
            });
            decide(orderId, DEDUCTED, null, List.of());
        }
    }

    /** Each changed order's last decision, in the order the orders first changed. */
    Map<String, Decision> changedReservations() {
        return changed;
    }

    /** Each changed SKU's new stock, in SKU order. */
    Map<String, Stock> changedStock() {
        return changedStock;
    }

    private void decide(String orderId, String status, String reason, List<String> shortSkus) {
        statuses.put(orderId, status);
        changed.put(
                orderId,
                new Decision(status, reason, shortSkus, lines.getOrDefault(orderId, Collections.emptySortedMap())));
    }

    private void setStock(String sku, Stock units) {
        stock.put(sku, units);
        changedStock.put(sku, units);
    }
}
