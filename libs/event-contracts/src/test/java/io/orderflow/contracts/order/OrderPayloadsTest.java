package io.orderflow.contracts.order;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.math.BigDecimal;
import org.junit.jupiter.api.Test;

/** The rules of the smaller payloads; each message names record and field. */
class OrderPayloadsTest {

    @Test
    void orderLineNeedsSkuPositiveQuantityAndNonNegativePrice() {
        assertThatThrownBy(() -> new OrderLine("", 1, BigDecimal.ONE)).hasMessageContaining("OrderLine.sku");
        assertThatThrownBy(() -> new OrderLine("A", 0, BigDecimal.ONE))
                .hasMessage("OrderLine.quantity must be at least 1, was 0");
        assertThatThrownBy(() -> new OrderLine("A", 1, null)).hasMessageContaining("OrderLine.unitPrice is required");
        assertThat(new OrderLine("A", 1, BigDecimal.ZERO).unitPrice()).isZero();
    }

    @Test
    void orderPaidNeedsAmountAndCurrencyButNotAPaymentReference() {
        assertThat(new OrderPaid("o-1", BigDecimal.TEN, "USD", null).paymentReference())
                .isNull();
        assertThatThrownBy(() -> new OrderPaid("o-1", null, "USD", null)).hasMessageContaining("OrderPaid.amount");
        assertThatThrownBy(() -> new OrderPaid("o-1", BigDecimal.TEN, "US", null))
                .hasMessageContaining("OrderPaid.currency");
        assertThatThrownBy(() -> new OrderPaid("o-1", BigDecimal.TEN, "USD", " "))
                .hasMessageContaining("OrderPaid.paymentReference must be absent or not blank");
    }

    @Test
    void amountsBeyondEighteenDigitsAreRejectedWithoutPrintingThemInFull() {
        assertThatThrownBy(() -> new OrderPaid("o-1", new BigDecimal("-1e999999999"), "USD", null))
                .hasMessageContaining("OrderPaid.amount must have at most 18 digits")
                .hasMessageEndingWith("1E+999999999");
        assertThatThrownBy(() -> new OrderLine("A", 1, new BigDecimal("0.0000000000000000001")))
                .hasMessageContaining("OrderLine.unitPrice must have at most 18 digits");
    }

    @Test
    void amountInExponentNotationBecomesAPlainInteger() {
        BigDecimal amount = new OrderPaid("o-1", new BigDecimal("1E+3"), "USD", null).amount();

        assertThat(amount).isEqualTo(new BigDecimal("1000"));
        assertThat(amount.scale()).isZero();
    }

    @Test
    void orderShippedNeedsOnlyTheOrder() {
        assertThat(new OrderShipped("o-1", null, null)).isEqualTo(new OrderShipped("o-1", null, null));
        assertThatThrownBy(() -> new OrderShipped(null, "DHL", "123")).hasMessageContaining("OrderShipped.orderId");
        assertThatThrownBy(() -> new OrderShipped("o-1", "", "123")).hasMessageContaining("OrderShipped.carrier");
    }

    @Test
    void orderCancelledNeedsAReason() {
        assertThatThrownBy(() -> new OrderCancelled("o-1", null))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("OrderCancelled.reason is required and must not be blank");
    }
}
