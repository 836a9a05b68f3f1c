package io.orderflow.orders.rest;

import io.orderflow.contracts.order.PayloadFields;
import org.eclipse.microprofile.openapi.annotations.media.Schema;

/**
 * The optional body of {@code POST /orders/{id}/cancel}. Without a reason, the configured default
 * ({@code orderflow.order-service.default-cancel-reason}) is recorded, since OrderCancelled always carries one.
 */
public record CancelOrderRequest(
        @PlainText(max = PayloadFields.MAX_REASON_LENGTH) @Schema(examples = "customer changed their mind")
        String reason) {}
