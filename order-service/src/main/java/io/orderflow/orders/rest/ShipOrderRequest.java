package io.orderflow.orders.rest;

import io.orderflow.contracts.order.PayloadFields;
import org.eclipse.microprofile.openapi.annotations.media.Schema;

/** The optional body of {@code POST /orders/{id}/ship}; not every shipment is tracked. */
public record ShipOrderRequest(
        @PlainText(max = PayloadFields.MAX_CARRIER_LENGTH) @Schema(examples = "DHL")
        String carrier,

        @PlainText(max = PayloadFields.MAX_REFERENCE_LENGTH) @Schema(examples = "JJD000390007")
        String trackingNumber) {}
