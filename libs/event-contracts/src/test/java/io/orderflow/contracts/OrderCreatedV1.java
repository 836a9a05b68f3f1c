package io.orderflow.contracts;

import io.orderflow.contracts.order.OrderEvent;
import io.orderflow.contracts.order.OrderLine;
import java.math.BigDecimal;
import java.util.List;

/**
 * Stand-in for a consumer built against release "1.0" of {@code OrderCreated}: the record as it was before 1.1 added
 * {@code channel}. Used with {@link #CATALOG} it reads like that old consumer would.
 */
record OrderCreatedV1(String orderId, String customerId, String currency, List<OrderLine> items, BigDecimal total)
        implements OrderEvent {

    /** The catalogue of the old release: OrderCreated existed at 1.0 only. */
    static final EventCatalog CATALOG = new EventCatalog(
            List.of(new EventType<>("OrderCreated", OrderCreatedV1.class, List.of(EventVersion.V1_0))));
}
