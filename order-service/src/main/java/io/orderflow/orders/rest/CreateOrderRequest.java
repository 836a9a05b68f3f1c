package io.orderflow.orders.rest;

import io.orderflow.contracts.order.PayloadFields;
import io.orderflow.orders.domain.NewOrder;
import jakarta.validation.Valid;
import jakarta.validation.constraints.NotEmpty;
import jakarta.validation.constraints.NotNull;
import jakarta.validation.constraints.Size;
import java.util.List;
import org.eclipse.microprofile.openapi.annotations.media.Schema;

/**
 * The body of {@code POST /orders}. Unknown fields are refused (400), so a misspelt optional field such as "chanel"
 * is reported rather than dropped.
 *
 * <p>Bounds: at most {@value #MAX_ITEMS} items, quantities up to 1,000,000, unit prices below 10^9 with at most 9
 * decimals. So every total is below 100 x 10^6 x 10^9 = 10^17 with at most 9 decimals, inside the event contracts'
 * limit of 18 digits on either side of the point: a valid request always makes a valid OrderCreated.
 */
public record CreateOrderRequest(
        @NotNull @PlainText @Schema(examples = "customer-7") String customerId,
        @NotNull @IsoCurrency @Schema(examples = "EUR") String currency,
        @NotEmpty @Size(max = MAX_ITEMS) List<@NotNull @Valid OrderLineRequest> items,

        @PlainText(max = PayloadFields.MAX_CHANNEL_LENGTH)
        @Schema(examples = "web", description = "where the order came from; optional")
        String channel) {

    static final int MAX_ITEMS = 100;

    NewOrder toNewOrder() {
        return new NewOrder(
                customerId,
                currency,
                channel,
                items.stream().map(OrderLineRequest::toItem).toList());
    }
}
