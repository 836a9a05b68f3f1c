package io.orderflow.orders.rest;

import io.orderflow.orders.domain.OrderItem;
import jakarta.validation.constraints.DecimalMin;
import jakarta.validation.constraints.Digits;
import jakarta.validation.constraints.Max;
import jakarta.validation.constraints.NotNull;
import jakarta.validation.constraints.Positive;
import java.math.BigDecimal;
import org.eclipse.microprofile.openapi.annotations.enums.SchemaType;
import org.eclipse.microprofile.openapi.annotations.media.Schema;

/**
 * One line of {@code POST /orders}. {@code unitPrice} is read from a JSON number or a numeric string ({@code 9.95} or
 * {@code "9.95"}), exactly, never through a double. The bounds keep every order total within the 18 digits the event
 * contracts allow, see {@link CreateOrderRequest}.
 */
public record OrderLineRequest(
        @NotNull @PlainText @Schema(examples = "SKU-1") String sku,

        @NotNull @Positive @Max(MAX_QUANTITY) @Schema(examples = "2")
        Integer quantity,

        @NotNull
        @DecimalMin("0")
        @Digits(integer = 9, fraction = 9)
        @Schema(type = SchemaType.STRING, examples = "9.95", description = "a JSON number or numeric string")
        BigDecimal unitPrice) {

    static final long MAX_QUANTITY = 1_000_000;

    OrderItem toItem() {
        return new OrderItem(sku, quantity, unitPrice);
    }
}
