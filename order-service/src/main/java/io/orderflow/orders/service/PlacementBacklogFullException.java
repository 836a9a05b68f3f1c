package io.orderflow.orders.service;

/**
 * {@code POST /orders} arrived while {@code orderflow.order-service.placement.queue-capacity} orders were already waiting to be
 * written, or while the service is shutting down: nothing was written, and the client should retry later (503).
 */
public class PlacementBacklogFullException extends RuntimeException {

    public PlacementBacklogFullException(String message) {
        super(message);
    }
}
