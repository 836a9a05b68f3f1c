package io.orderflow.contracts;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.time.Instant;
import java.util.UUID;
import org.junit.jupiter.api.Test;

class EventEnvelopeTest {

    private static final UUID ID = UUID.fromString("6f1c3d7e-2a4b-4c5d-8e9f-0a1b2c3d4e5f");
    private static final Instant AT = Instant.parse("2025-03-01T12:00:00Z");

    @Test
    void rejectsMissingRequiredFieldNamingIt() {
        ObjectNode payload = payload();
        assertThatThrownBy(() -> new EventEnvelope(null, "OrderPaid", EventVersion.V1_0, AT, "p", "o", null, payload))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("eventId");
        assertThatThrownBy(() -> new EventEnvelope(ID, "OrderPaid", EventVersion.V1_0, AT, " ", "o", null, payload))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("producer");
        assertThatThrownBy(() -> new EventEnvelope(ID, "OrderPaid", EventVersion.V1_0, AT, "p", "o", null, null))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("payload");
    }

    @Test
    void rejectsMalformedTraceparent() {
        assertThatThrownBy(() ->
                        new EventEnvelope(ID, "OrderPaid", EventVersion.V1_0, AT, "p", "o", "00-abc-def-01", payload()))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("traceparent");
    }

    @Test
    void payloadCannotBeChangedFromOutside() {
        ObjectNode payload = payload();
        var envelope = new EventEnvelope(ID, "OrderPaid", EventVersion.V1_0, AT, "p", "o", null, payload);

        payload.put("orderId", "changed-before");
        envelope.payload().put("orderId", "changed-after");

        assertThat(envelope.payload().path("orderId").textValue()).isEqualTo("o");
    }

    private static ObjectNode payload() {
        return JsonNodeFactory.instance.objectNode().put("orderId", "o");
    }
}
