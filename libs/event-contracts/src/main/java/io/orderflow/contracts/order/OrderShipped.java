package io.orderflow.contracts.order;

/** An order left the warehouse. Carrier and tracking number are optional: not every shipment is tracked. */
public record OrderShipped(String orderId, String carrier, String trackingNumber) implements OrderEvent {

    public OrderShipped {
        PayloadFields.requireText(orderId, "OrderShipped.orderId");
        PayloadFields.optionalText(carrier, "OrderShipped.carrier");
        PayloadFields.optionalText(trackingNumber, "OrderShipped.trackingNumber");
    }
}
