package io.orderflow.orders.service;

import static org.assertj.core.api.Assertions.assertThat;

import io.orderflow.orders.domain.NewOrder;
import io.orderflow.orders.domain.OrderItem;
import io.orderflow.property.Gen;
import io.orderflow.property.Properties;
import java.math.BigDecimal;
import java.util.List;
import java.util.Objects;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;

class RequestFingerprintPropertiesTest {

    private static final List<String> AMOUNTS = List.of("0", "0.00", "1", "1.0", "1.50", "1.5", "10");

    /**
     * Two requests have one fingerprint exactly when they are the same request: equal texts and quantities, amounts
     * equal by value, same item order. Drawn from small domains so that equal pairs are frequent.
     */
    @Test
    void twoRequestsShareAFingerprintExactlyWhenTheyAreTheSameRequest() {
        Properties.forAll(2000, gen -> {
            NewOrder one = request(gen);
            NewOrder other = request(gen);
            boolean same = RequestFingerprint.of(one).equals(RequestFingerprint.of(other));

            assertThat(same).isEqualTo(sameRequest(one, other));
        });
    }

    @Test
    void theFingerprintIsALowerCaseSha256() {
        Properties.forAll(1000, gen -> {
            NewOrder request = request(gen);

            assertThat(RequestFingerprint.of(request)).matches("[0-9a-f]{64}");
        });
    }

    @Test
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

    /** A request from small domains: texts "a" or "b", quantities 1 or 2, amounts with equal values spelled apart. */
    private static NewOrder request(Gen gen) {
        return new NewOrder(
                text(gen),
                gen.oneOf("EUR", "USD"),
                gen.chance(0.4) ? null : text(gen),
                gen.list(1, 2, RequestFingerprintPropertiesTest::item));
    }

    private static OrderItem item(Gen gen) {
        return new OrderItem(text(gen), gen.ints(1, 2), new BigDecimal(gen.oneOf(AMOUNTS)));
    }

    private static String text(Gen gen) {
        return gen.oneOf("a", "b");
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
