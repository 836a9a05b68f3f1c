package io.orderflow.contracts;

import static org.assertj.core.api.Assertions.assertThatCode;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.orderflow.contracts.inventory.InventoryRejected;
import io.orderflow.contracts.inventory.InventoryReserved;
import io.orderflow.contracts.inventory.ReservedLine;
import io.orderflow.contracts.order.OrderCancelled;
import io.orderflow.contracts.order.OrderConfirmed;
import io.orderflow.contracts.order.OrderCreated;
import io.orderflow.contracts.order.OrderLine;
import io.orderflow.contracts.order.OrderPaid;
import io.orderflow.contracts.order.OrderRejected;
import io.orderflow.contracts.order.OrderShipped;
import java.math.BigDecimal;
import java.util.List;
import java.util.function.Function;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Each text field's length limit, as the README's table gives it: the limit itself is accepted, one character more is
 * refused naming the field, and a control character is refused in every field, free text included.
 */
class PayloadFieldLimitsTest {

    private static final List<OrderLine> LINES = List.of(new OrderLine("SKU-1", 1, BigDecimal.ONE));

    static Stream<Arguments> textFields() {
        return Stream.of(
                field("OrderCreated.orderId", 100, v -> new OrderCreated(v, "c", "EUR", LINES, BigDecimal.ONE, null)),
                field(
                        "OrderCreated.customerId",
                        100,
                        v -> new OrderCreated("o", v, "EUR", LINES, BigDecimal.ONE, null)),
                field("OrderCreated.channel", 50, v -> new OrderCreated("o", "c", "EUR", LINES, BigDecimal.ONE, v)),
                field("OrderLine.sku", 100, v -> new OrderLine(v, 1, BigDecimal.ONE)),
                field("OrderPaid.orderId", 100, v -> new OrderPaid(v, BigDecimal.ONE, "EUR", null)),
                field("OrderPaid.paymentReference", 200, v -> new OrderPaid("o", BigDecimal.ONE, "EUR", v)),
                field("OrderShipped.orderId", 100, v -> new OrderShipped(v, null, null)),
                field("OrderShipped.carrier", 100, v -> new OrderShipped("o", v, null)),
                field("OrderShipped.trackingNumber", 200, v -> new OrderShipped("o", null, v)),
                field("OrderCancelled.orderId", 100, v -> new OrderCancelled(v, "r")),
                field("OrderCancelled.reason", 500, v -> new OrderCancelled("o", v)),
                field("OrderConfirmed.orderId", 100, OrderConfirmed::new),
                field("OrderRejected.orderId", 100, v -> new OrderRejected(v, "r", List.of())),
                field("OrderRejected.reason", 500, v -> new OrderRejected("o", v, List.of())),
                field("OrderRejected.shortSkus[1]", 100, v -> new OrderRejected("o", "r", List.of("s", v))),
                field(
                        "InventoryReserved.orderId",
                        100,
                        v -> new InventoryReserved(v, List.of(new ReservedLine("s", 1)))),
                field("ReservedLine.sku", 100, v -> new ReservedLine(v, 1)),
                field("InventoryRejected.orderId", 100, v -> new InventoryRejected(v, "r", List.of())),
                field("InventoryRejected.reason", 500, v -> new InventoryRejected("o", v, List.of())),
                field("InventoryRejected.shortSkus[1]", 100, v -> new InventoryRejected("o", "r", List.of("s", v))));
    }

    private static Arguments field(String name, int limit, Function<String, Object> construct) {
        return Arguments.of(name, limit, construct);
    }

    @ParameterizedTest(name = "{0} up to {1}")
    @MethodSource("textFields")
    void acceptsTheLimitAndRefusesOneCharacterMoreNamingTheField(
            String name, int limit, Function<String, Object> construct) {
        assertThatCode(() -> construct.apply("é".repeat(limit))).doesNotThrowAnyException();
        assertThatThrownBy(() -> construct.apply("x".repeat(limit + 1)))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage(name + " must be at most " + limit + " characters, was " + (limit + 1));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("textFields")
    void refusesTabsAndLineBreaksInEveryFieldFreeTextIncluded(
            String name, int limit, Function<String, Object> construct) {
        for (String text : List.of("two\tcolumns", "two\nlines", "carriage\rreturn")) {
            assertThatThrownBy(() -> construct.apply(text))
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessageStartingWith(name + " must not contain control characters");
        }
    }
}
