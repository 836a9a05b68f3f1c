package io.orderflow.ops.powercut;

import com.fasterxml.jackson.annotation.JsonProperty;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.Collection;
import java.util.List;

/**
 * What a client asked of the platform and what the platform acknowledged, kept as a file so that the invariant checker
 * can judge it from another process ({@code ops/bin/invariants --journal FILE}) as well as from the drill that drove
 * the orders.
 *
 * <p>One JSON document: the run (the customer id prefix that marks its orders, the SKU it stocked and how many units,
 * when it began) and one entry per order with the statuses the platform answered with, oldest first, and the status
 * asked for and never answered, if any. An order whose placement was never answered has no id.
 *
 * @param run what the run was
 * @param orders every order the run tried to place
 */
public record OrderJournal(Run run, List<Order> orders) {

    /**
     * @param customerPrefix every order of the run has a customer id starting with it, and no other order has
     * @param sku the SKU the run stocked; a fifth of its orders are for {@link OrderTraffic#SOLD_OUT} instead
     * @param stockOnHand the units on hand the run stocked {@code sku} with
     * @param sinceMillis when the run began: the topic is read from there, analytics-service's minutes from its minute
     */
    public record Run(
            @JsonProperty("customerPrefix") String customerPrefix,
            @JsonProperty("sku") String sku,
            @JsonProperty("stockOnHand") long stockOnHand,
            @JsonProperty("sinceMillis") long sinceMillis) {}

    /**
     * @param customer the order's own customer id (its {@code OrderCreated} carries it)
     * @param sku what it ordered
     * @param orderId the id order-service answered with; null if the placement was never answered
     * @param acknowledged the statuses the platform answered with, oldest first
     * @param attempted a status asked for and never answered (a cut came meanwhile); null if none
     */
    public record Order(
            @JsonProperty("customer") String customer,
            @JsonProperty("sku") String sku,
            @JsonProperty("orderId") String orderId,
            @JsonProperty("acknowledged") List<String> acknowledged,
            @JsonProperty("attempted") String attempted) {

        public Order {
            acknowledged = List.copyOf(acknowledged);
        }

        String lastAcknowledged() {
            return acknowledged.isEmpty() ? null : acknowledged.getLast();
        }
    }

    private static final ObjectMapper JSON = new ObjectMapper().enable(SerializationFeature.INDENT_OUTPUT);

    public OrderJournal {
        orders = List.copyOf(orders);
    }

    /** The journal of {@code histories} at this moment. */
    static OrderJournal of(Run run, Collection<OrderTraffic.History> histories) {
        return new OrderJournal(
                run,
                histories.stream()
                        .map(history -> new Order(
                                history.customer,
                                history.sku,
                                history.orderId,
                                history.acknowledged(),
                                history.attempted))
                        .toList());
    }

    /** Writes it to {@code file}, replacing it whole (a temporary file renamed over it). */
    public void write(Path file) throws IOException {
        Path temporary = file.resolveSibling(file.getFileName() + ".tmp");
        JSON.writeValue(temporary.toFile(), this);
        Files.move(temporary, file, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
    }

    public static OrderJournal read(Path file) throws IOException {
        return JSON.readValue(file.toFile(), OrderJournal.class);
    }

    /** The orders whose placement was acknowledged. */
    public List<Order> placed() {
        return orders.stream().filter(order -> order.orderId() != null).toList();
    }
}
