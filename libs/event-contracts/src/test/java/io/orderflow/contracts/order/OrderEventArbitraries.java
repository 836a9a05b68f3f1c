package io.orderflow.contracts.order;

import java.math.BigDecimal;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;

/** Generators of valid order payloads, shared by the property tests of this module. */
public final class OrderEventArbitraries {

    private OrderEventArbitraries() {}

    /** Non-blank text, mostly printable ASCII with some non-ASCII letters, as ids and names may contain. */
    public static Arbitrary<String> text() {
        return Arbitraries.strings()
                .withCharRange(' ', '~')
                .withChars("äöüßéñ€中文")
                .ofMinLength(1)
                .ofMaxLength(24)
                .filter(s -> !s.isBlank());
    }

    public static Arbitrary<BigDecimal> amounts() {
        return Arbitraries.oneOf(
                Arbitraries.bigDecimals()
                        .between(BigDecimal.ZERO, new BigDecimal("1000000"))
                        .ofScale(2),
                Arbitraries.bigDecimals()
                        .between(BigDecimal.ZERO, new BigDecimal("1000"))
                        .ofScale(3),
                Arbitraries.bigDecimals()
                        .between(BigDecimal.ZERO, new BigDecimal("1000000000000"))
                        .ofScale(0));
    }

    public static Arbitrary<String> currencies() {
        return Arbitraries.strings().withCharRange('A', 'Z').ofLength(3);
    }

    public static Arbitrary<OrderLine> orderLines() {
        return Combinators.combine(text(), Arbitraries.integers().between(1, 10_000), amounts())
                .as(OrderLine::new);
    }

    public static Arbitrary<OrderCreated> orderCreated() {
        return Combinators.combine(
                        text(),
                        text(),
                        currencies(),
                        orderLines().list().ofMinSize(1).ofMaxSize(5),
                        amounts(),
                        text().injectNull(0.3))
                .as(OrderCreated::new);
    }

    public static Arbitrary<OrderPaid> orderPaid() {
        return Combinators.combine(text(), amounts(), currencies(), text().injectNull(0.3))
                .as(OrderPaid::new);
    }

    public static Arbitrary<OrderShipped> orderShipped() {
        return Combinators.combine(text(), text().injectNull(0.3), text().injectNull(0.3))
                .as(OrderShipped::new);
    }

    public static Arbitrary<OrderCancelled> orderCancelled() {
        return Combinators.combine(text(), text()).as(OrderCancelled::new);
    }

    /** Any event of the current catalogue. */
    public static Arbitrary<OrderEvent> orderEvents() {
        return Arbitraries.oneOf(orderCreated(), orderPaid(), orderShipped(), orderCancelled());
    }
}
