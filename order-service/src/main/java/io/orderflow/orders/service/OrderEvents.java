package io.orderflow.orders.service;

import io.orderflow.contracts.order.OrderCancelled;
import io.orderflow.contracts.order.OrderConfirmed;
import io.orderflow.contracts.order.OrderCreated;
import io.orderflow.contracts.order.OrderEvent;
import io.orderflow.contracts.order.OrderLine;
import io.orderflow.contracts.order.OrderPaid;
import io.orderflow.contracts.order.OrderRejected;
import io.orderflow.contracts.order.OrderShipped;
import io.orderflow.orders.domain.Order;
import io.orderflow.orders.domain.OrderTransition;

/**
 * The event that records each change of an order, built from the order as it is after the change: OrderCreated for
 * a creation, and one event per {@link OrderTransition}. The payload records are event-contracts' own, so the outbox
 * always carries what the contracts define (their constructors check every field).
 */
public final class OrderEvents {

    private OrderEvents() {}

    public static OrderCreated created(Order order) {
        return new OrderCreated(
                order.id().toString(),
                order.customerId(),
                order.currency(),
                order.items().stream()
                        .map(item -> new OrderLine(item.sku(), item.quantity(), item.unitPrice()))
                        .toList(),
                order.total(),
                order.channel());
    }

    /** The event of {@code transition}, which {@code order} (its state after the transition) has just gone through. */
    public static OrderEvent of(OrderTransition transition, Order order) {
        String orderId = order.id().toString();
        return switch (transition) {
            case CONFIRM -> new OrderConfirmed(orderId);
            case REJECT -> new OrderRejected(orderId, order.rejectionReason(), order.shortSkus());
            case PAY -> new OrderPaid(orderId, order.total(), order.currency(), order.paymentReference());
            case SHIP -> new OrderShipped(orderId, order.carrier(), order.trackingNumber());
            case CANCEL -> new OrderCancelled(orderId, order.cancellationReason());
        };
    }
}
