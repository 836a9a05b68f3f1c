package io.orderflow.contracts;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.entry;

import io.orderflow.contracts.order.OrderShipped;
import java.time.Instant;
import java.util.UUID;
import org.junit.jupiter.api.Test;

class EventHeadersTest {

    private static final UUID ID = UUID.fromString("6f1c3d7e-2a4b-4c5d-8e9f-0a1b2c3d4e5f");
    private static final String TRACEPARENT = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01";
    private final EventCodec codec = new EventCodec();

    @Test
    void headerNamesAreTheEnvelopeFieldNames() {
        assertThat(EventHeaders.EVENT_ID).isEqualTo("eventId");
        assertThat(EventHeaders.EVENT_TYPE).isEqualTo("eventType");
        assertThat(EventHeaders.EVENT_VERSION).isEqualTo("eventVersion");
        assertThat(EventHeaders.TRACEPARENT).isEqualTo("traceparent");
    }

    @Test
    void headersMirrorTheEnvelope() {
        var envelope = codec.wrap(new OrderShipped("order-1", null, null), ID, Instant.EPOCH, "svc", TRACEPARENT);

        assertThat(EventHeaders.of(envelope))
                .containsExactly(
                        entry("eventId", ID.toString()),
                        entry("eventType", "OrderShipped"),
                        entry("eventVersion", "1.0"),
                        entry("traceparent", TRACEPARENT));
    }

    @Test
    void traceparentHeaderIsAbsentWithoutTraceContext() {
        var envelope = codec.wrap(new OrderShipped("order-1", null, null), ID, Instant.EPOCH, "svc", null);

        assertThat(EventHeaders.of(envelope))
                .doesNotContainKey(EventHeaders.TRACEPARENT)
                .hasSize(3);
    }

    @Test
    void ordersTopicIsKeyedByTheEnvelopesOrderId() {
        var envelope = codec.wrap(new OrderShipped("order-1", "DHL", null), ID, Instant.EPOCH, "svc", null);

        assertThat(Topics.ORDERS).isEqualTo("orders");
        assertThat(envelope.orderId()).isEqualTo("order-1");
    }
}
