package io.orderflow.contracts.order;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.math.BigDecimal;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;

class OrderCreatedTest {

    private static final List<OrderLine> LINES = List.of(new OrderLine("SKU-1", 3, new BigDecimal("0.10")));

    @Test
    void orderWithoutChannelHasTheUnknownChannel() {
        var created = new OrderCreated("o-1", "c-1", "EUR", LINES, new BigDecimal("0.30"), null);

        assertThat(created.channel()).isEqualTo(OrderCreated.UNKNOWN_CHANNEL).isEqualTo("unknown");
    }

    @Test
    void amountsStayExactDecimals() {
        var line = new OrderLine("SKU-1", 3, new BigDecimal("0.10"));
        var created = new OrderCreated("o-1", "c-1", "EUR", List.of(line), new BigDecimal("0.30"), "web");

        BigDecimal sum = line.unitPrice().multiply(BigDecimal.valueOf(line.quantity()));

        assertThat(sum).isEqualByComparingTo(created.total());
        assertThat(0.1 * 3).isNotEqualTo(0.3); // what a double would have made of it
    }

    @Test
    void itemsCannotBeChangedFromOutside() {
        List<OrderLine> lines = new ArrayList<>(LINES);
        var created = new OrderCreated("o-1", "c-1", "EUR", lines, BigDecimal.ONE, "web");

        lines.clear();

        assertThat(created.items()).hasSize(1);
        assertThatThrownBy(() -> created.items().clear()).isInstanceOf(UnsupportedOperationException.class);
    }

    @Test
    void rejectsOrderWithoutLines() {
        assertThatThrownBy(() -> new OrderCreated("o-1", "c-1", "EUR", List.of(), BigDecimal.ONE, "web"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("OrderCreated.items");
        assertThatThrownBy(() ->
                        new OrderCreated("o-1", "c-1", "EUR", Arrays.asList((OrderLine) null), BigDecimal.ONE, "web"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("null lines");
    }

    @Test
    void rejectsCurrencyThatIsNotAnIsoCode() {
        assertThatThrownBy(() -> new OrderCreated("o-1", "c-1", "eur", LINES, BigDecimal.ONE, "web"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("OrderCreated.currency")
                .hasMessageContaining("\"eur\"");
    }

    @Test
    void rejectsNegativeTotalAndBlankIds() {
        assertThatThrownBy(() -> new OrderCreated("o-1", "c-1", "EUR", LINES, new BigDecimal("-0.01"), "web"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("OrderCreated.total must not be negative, was -0.01");
        assertThatThrownBy(() -> new OrderCreated(" ", "c-1", "EUR", LINES, BigDecimal.ONE, "web"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("OrderCreated.orderId");
        assertThatThrownBy(() -> new OrderCreated("o-1", null, "EUR", LINES, BigDecimal.ONE, "web"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("OrderCreated.customerId");
    }
}
