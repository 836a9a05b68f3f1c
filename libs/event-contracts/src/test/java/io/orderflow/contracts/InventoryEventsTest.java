package io.orderflow.contracts;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.orderflow.contracts.inventory.InventoryRejected;
import io.orderflow.contracts.inventory.InventoryReserved;
import io.orderflow.contracts.inventory.ReservedLine;
import io.orderflow.contracts.order.OrderEvent;
import java.time.Instant;
import java.util.List;
import java.util.UUID;
import org.junit.jupiter.api.Test;

/** inventory-service's outcomes travel in the same envelope as order events and fit their published schemas. */
class InventoryEventsTest {

    private final EventCodec codec = new EventCodec(EventCatalog.inventoryEvents());

    private EventEnvelope roundTrip(OrderEvent event) {
        EventEnvelope envelope =
                codec.wrap(event, UUID.randomUUID(), Instant.parse("2026-12-02T00:00:00Z"), "inventory-service", null);
        EventEnvelope read = codec.decode(codec.encode(envelope));
        assertThat(codec.decodePayload(read)).isEqualTo(event);
        assertThat(ContractSchema.payload(read.eventType(), read.eventVersion()).violations(read.payload()))
                .isEmpty();
        return read;
    }

    @Test
    void aReservationRoundTripsAndFitsItsSchema() {
        EventEnvelope read = roundTrip(new InventoryReserved("order-1", List.of(new ReservedLine("sku-1", 2))));

        assertThat(read.eventType()).isEqualTo("InventoryReserved");
        assertThat(read.eventVersion()).isEqualTo(EventVersion.V1_0);
        assertThat(read.orderId()).isEqualTo("order-1");
    }

    @Test
    void aRejectionRoundTripsWithAndWithoutShortSkus() {
        roundTrip(new InventoryRejected("order-1", "not enough stock", List.of("sku-1")));
        EventEnvelope read = roundTrip(new InventoryRejected("order-2", "cancelled before it was reserved", null));

        assertThat(read.payload().path("shortSkus").isArray()).isTrue();
    }

    @Test
    void theOrderCodecDoesNotReadInventoryEvents() {
        byte[] value = codec.encode(codec.wrap(
                new InventoryRejected("order-1", "no stock", List.of()),
                UUID.randomUUID(),
                Instant.EPOCH,
                "inventory-service",
                null));

        assertThatThrownBy(() -> new EventCodec().decodePayload(new EventCodec().decode(value)))
                .isInstanceOf(UnknownEventTypeException.class);
    }

    @Test
    void aReservedLineNeedsAPositiveQuantity() {
        assertThatThrownBy(() -> new ReservedLine("sku-1", 0))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("ReservedLine.quantity");
    }
}
