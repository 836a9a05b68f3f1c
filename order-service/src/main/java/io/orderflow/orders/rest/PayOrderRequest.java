package io.orderflow.orders.rest;

import io.orderflow.contracts.order.PayloadFields;
import org.eclipse.microprofile.openapi.annotations.media.Schema;

/** The optional body of {@code POST /orders/{id}/pay}. */
public record PayOrderRequest(
        @PlainText(max = PayloadFields.MAX_REFERENCE_LENGTH)
        @Schema(description = "the payment provider's id of the payment", examples = "pay_123")
        String paymentReference) {}
