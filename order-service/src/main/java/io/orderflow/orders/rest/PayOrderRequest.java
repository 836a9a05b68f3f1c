package io.orderflow.orders.rest;

import org.eclipse.microprofile.openapi.annotations.media.Schema;

/** The optional body of {@code POST /orders/{id}/pay}. */
public record PayOrderRequest(
        @PlainText(max = 200) @Schema(description = "the payment provider's id of the payment", examples = "pay_123")
        String paymentReference) {}
