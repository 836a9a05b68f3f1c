package io.orderflow.contracts.order;

import java.math.BigDecimal;

/** Payment for an order was captured. {@code paymentReference} is the payment provider's id, when it gave one. */
public record OrderPaid(String orderId, BigDecimal amount, String currency, String paymentReference)
        implements OrderEvent {

    public OrderPaid {
        PayloadFields.requireId(orderId, "OrderPaid.orderId");
        amount = PayloadFields.requireAmount(amount, "OrderPaid.amount");
        PayloadFields.requireCurrency(currency, "OrderPaid.currency");
        PayloadFields.optionalText(paymentReference, "OrderPaid.paymentReference", PayloadFields.MAX_REFERENCE_LENGTH);
    }
}
