package io.orderflow.orders.rest;

import org.eclipse.microprofile.openapi.annotations.media.Schema;

/** The optional body of {@code POST /orders/{id}/ship}; not every shipment is tracked. */
public record ShipOrderRequest(
        @PlainText @Schema(examples = "DHL") String carrier,

        @PlainText(max = 200) @Schema(examples = "JJD000390007")
        String trackingNumber) {}
