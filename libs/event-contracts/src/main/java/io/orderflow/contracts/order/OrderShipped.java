package io.orderflow.contracts.order;

/** An order left the warehouse. Carrier and tracking number are optional: not every shipment is tracked. */
public record OrderShipped(String orderId, String carrier, String trackingNumber) implements OrderEvent {

    public OrderShipped {
        PayloadFields.requireId(orderId, "OrderShipped.orderId");
        PayloadFields.optionalText(carrier, "OrderShipped.carrier", PayloadFields.MAX_CARRIER_LENGTH);
        PayloadFields.optionalText(trackingNumber, "OrderShipped.trackingNumber", PayloadFields.MAX_REFERENCE_LENGTH);
    }
}
