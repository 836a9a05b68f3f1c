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
 * when it began) and one entry per order with the statuses it surely has had, oldest first, and after them the
 * statuses it may have reached: asked for and never answered (a power cut came meanwhile), or acknowledged while a
 * backup was being taken. An order that may or may not have been placed has no id, and CREATED among its uncertain
 * statuses.
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
     * @param orderId the id order-service answered with; null if the order may or may not have been placed
     * @param acknowledged the statuses the order surely has had, oldest first
     * @param uncertain the statuses after those it may have reached, in lifecycle order: asked for and never
     *     answered, or acknowledged after the moment the journal speaks for
     */
    public record Order(
            @JsonProperty("customer") String customer,
            @JsonProperty("sku") String sku,
            @JsonProperty("orderId") String orderId,
            @JsonProperty("acknowledged") List<String> acknowledged,
            @JsonProperty("uncertain") List<String> uncertain) {

        public Order {
            acknowledged = List.copyOf(acknowledged);
            uncertain = List.copyOf(uncertain);
        }

        /** Whether the order may have been placed though its placement was never acknowledged. */
        boolean placementUncertain() {
            return orderId == null && uncertain.contains("CREATED");
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
                                history.attempted == null ? List.of() : List.of(history.attempted)))
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

    /** How many orders have a request that was never answered (a power cut or a fault came between). */
    public long unanswered() {
        return orders.stream().filter(order -> !order.uncertain().isEmpty()).count();
    }
}
