package io.orderflow.orders.service;

import static org.assertj.core.api.Assertions.assertThat;

import io.orderflow.orders.domain.NewOrder;
import io.orderflow.orders.domain.OrderItem;
import java.math.BigDecimal;
import java.util.List;
import java.util.Objects;
import java.util.stream.IntStream;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.Example;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;

class RequestFingerprintPropertiesTest {

    /**
     * Two requests have one fingerprint exactly when they are the same request: equal texts and quantities, amounts
     * equal by value, same item order. Drawn from small domains so that equal pairs are frequent.
     */
    @Property(tries = 2000)
    void twoRequestsShareAFingerprintExactlyWhenTheyAreTheSameRequest(
            @ForAll("requests") NewOrder one, @ForAll("requests") NewOrder other) {
        boolean same = RequestFingerprint.of(one).equals(RequestFingerprint.of(other));

        assertThat(same).isEqualTo(sameRequest(one, other));
    }

    @Property
    void theFingerprintIsALowerCaseSha256(@ForAll("requests") NewOrder request) {
        assertThat(RequestFingerprint.of(request)).matches("[0-9a-f]{64}");
    }

    @Example
    void theCanonicalFormHasFixedFieldsAndPlainAmounts() {
        NewOrder request = new NewOrder(
                "c",
                "EUR",
                null,
                List.of(new OrderItem("S", 2, new BigDecimal("9.950")), new OrderItem("T", 1, new BigDecimal("1E+2"))));

        assertThat(RequestFingerprint.canonicalForm(request))
                .isEqualTo("{\"customerId\":\"c\",\"currency\":\"EUR\",\"channel\":null,\"items\":["
                        + "{\"sku\":\"S\",\"quantity\":2,\"unitPrice\":\"9.95\"},"
                        + "{\"sku\":\"T\",\"quantity\":1,\"unitPrice\":\"100\"}]}");
    }

    @Provide
    Arbitrary<NewOrder> requests() {
        Arbitrary<String> text = Arbitraries.of("a", "b");
        Arbitrary<BigDecimal> amounts =
                Arbitraries.of("0", "0.00", "1", "1.0", "1.50", "1.5", "10").map(BigDecimal::new);
        Arbitrary<OrderItem> items = Combinators.combine(
                        text, Arbitraries.integers().between(1, 2), amounts)
                .as(OrderItem::new);
        return Combinators.combine(
                        text,
                        Arbitraries.of("EUR", "USD"),
                        text.injectNull(0.4),
                        items.list().ofMinSize(1).ofMaxSize(2))
                .as(NewOrder::new);
    }

    private static boolean sameRequest(NewOrder one, NewOrder other) {
        return one.customerId().equals(other.customerId())
                && one.currency().equals(other.currency())
                && Objects.equals(one.channel(), other.channel())
                && one.items().size() == other.items().size()
                && IntStream.range(0, one.items().size())
                        .allMatch(
                                i -> sameItem(one.items().get(i), other.items().get(i)));
    }

    private static boolean sameItem(OrderItem one, OrderItem other) {
        return one.sku().equals(other.sku())
                && one.quantity() == other.quantity()
                && one.unitPrice().compareTo(other.unitPrice()) == 0;
    }
}
