package io.orderflow.contracts;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.node.ObjectNode;
import io.orderflow.contracts.order.OrderConfirmed;
import io.orderflow.contracts.order.OrderCreated;
import io.orderflow.contracts.order.OrderEvent;
import io.orderflow.contracts.order.OrderLine;
import io.orderflow.contracts.order.OrderRejected;
import java.math.BigDecimal;
import java.time.Instant;
import java.util.List;
import java.util.UUID;
import org.junit.jupiter.api.Test;

/** The versioning rule, shown between readers and writers of different releases (issue: v1 = 1.0, v2 = 1.1). */
class EventVersioningTest {

    private static final UUID EVENT_ID = UUID.fromString("6f1c3d7e-2a4b-4c5d-8e9f-0a1b2c3d4e5f");
    private static final Instant AT = Instant.parse("2025-03-01T12:00:00Z");
    private static final List<OrderLine> LINES = List.of(new OrderLine("SKU-1", 2, new BigDecimal("9.95")));

    private final EventCodec current = new EventCodec();
    private final EventCodec v1Release = new EventCodec(OrderCreatedV1.CATALOG);

    @Test
    void v2WriterStampsOrderCreatedWithVersion1_1() {
        EventEnvelope envelope = wrap(current, orderCreated("mobile"));

        assertThat(envelope.eventVersion()).isEqualTo(EventVersion.V1_1);
        assertThat(envelope.payload().path("channel").textValue()).isEqualTo("mobile");
    }

    @Test
    void v1ReaderIgnoresChannelAddedInV2() {
        byte[] written = current.encode(wrap(current, orderCreated("mobile")));

        var read = v1Release.decodePayload(v1Release.decode(written));

        assertThat(read).isEqualTo(new OrderCreatedV1("order-1", "customer-7", "EUR", LINES, new BigDecimal("19.90")));
    }

    @Test
    void v2ReaderDefaultsChannelOfV1PayloadToUnknown() {
        EventEnvelope written =
                wrap(v1Release, new OrderCreatedV1("order-1", "customer-7", "EUR", LINES, new BigDecimal("19.90")));
        assertThat(written.eventVersion()).isEqualTo(EventVersion.V1_0);
        assertThat(written.payload().has("channel")).isFalse();

        var read = current.decodePayload(current.decode(v1Release.encode(written)));

        assertThat(read).isEqualTo(orderCreated(OrderCreated.UNKNOWN_CHANNEL));
        assertThat(((OrderCreated) read).channel()).isEqualTo("unknown");
    }

    @Test
    void readerAcceptsNewerMinorOfItsMajorAndIgnoresItsAdditions() {
        ObjectNode payload = current.wrap(orderCreated("web"), EVENT_ID, AT, "order-service", null)
                .payload();
        payload.put("giftWrap", true);

        var read = current.decodePayload(envelope("OrderCreated", "1.7", payload));

        assertThat(read).isEqualTo(orderCreated("web"));
    }

    @Test
    void newerMajorIsRejectedAsUnsupportedNamingTypeFoundAndHighestSupportedVersion() {
        ObjectNode payload = current.wrap(orderCreated("web"), EVENT_ID, AT, "order-service", null)
                .payload();

        assertThatThrownBy(() -> current.decodePayload(envelope("OrderCreated", "2.0", payload)))
                .isInstanceOfSatisfying(UnsupportedEventVersionException.class, e -> {
                    assertThat(e.eventId()).isEqualTo(EVENT_ID);
                    assertThat(e.eventType()).isEqualTo("OrderCreated");
                    assertThat(e.found()).isEqualTo(new EventVersion(2, 0));
                    assertThat(e.highestSupported()).isEqualTo(EventVersion.V1_1);
                })
                .hasMessageContaining("OrderCreated")
                .hasMessageContaining("2.0")
                .hasMessageContaining("1.1");
    }

    @Test
    void v1ReaderRejectsNewerMajorWithItsOwnHighestVersion() {
        ObjectNode payload = current.wrap(orderCreated("web"), EVENT_ID, AT, "order-service", null)
                .payload();

        assertThatThrownBy(() -> v1Release.decodePayload(envelope("OrderCreated", "2.0", payload)))
                .isInstanceOfSatisfying(
                        UnsupportedEventVersionException.class,
                        e -> assertThat(e.highestSupported()).isEqualTo(EventVersion.V1_0));
    }

    @Test
    void olderMajorIsRejectedAsUnsupportedToo() {
        ObjectNode payload = current.wrap(orderCreated("web"), EVENT_ID, AT, "order-service", null)
                .payload();

        assertThatThrownBy(() -> current.decodePayload(envelope("OrderCreated", "0.9", payload)))
                .isInstanceOfSatisfying(
                        UnsupportedEventVersionException.class,
                        e -> assertThat(e.found()).isEqualTo(new EventVersion(0, 9)));
    }

    @Test
    void unknownEventTypeIsRejectedAsUnknownNamingTheTypeAndTheKnownOnes() {
        ObjectNode payload = current.wrap(orderCreated("web"), EVENT_ID, AT, "order-service", null)
                .payload();

        assertThatThrownBy(() -> current.decodePayload(envelope("OrderRefunded", "1.0", payload)))
                .isInstanceOfSatisfying(UnknownEventTypeException.class, e -> {
                    assertThat(e.eventId()).isEqualTo(EVENT_ID);
                    assertThat(e.eventType()).isEqualTo("OrderRefunded");
                    assertThat(e.knownTypes())
                            .containsExactlyInAnyOrder(
                                    "OrderCreated",
                                    "OrderPaid",
                                    "OrderShipped",
                                    "OrderCancelled",
                                    "OrderConfirmed",
                                    "OrderRejected");
                })
                .hasMessageContaining("OrderRefunded");
    }

    @Test
    void v1ReaderDoesNotKnowEventTypesAddedLater() {
        ObjectNode payload = current.wrap(orderCreated("web"), EVENT_ID, AT, "order-service", null)
                .payload();

        assertThatThrownBy(() -> v1Release.decodePayload(envelope("OrderPaid", "1.0", payload)))
                .isInstanceOf(UnknownEventTypeException.class);
    }

    @Test
    void aReaderFromBeforeTheSagaDoesNotKnowItsEventsSoItsConsumerSkipsThem() {
        EventCodec beforeTheSaga = new EventCodec(new EventCatalog(List.of(
                EventCatalog.ORDER_CREATED,
                EventCatalog.ORDER_PAID,
                EventCatalog.ORDER_SHIPPED,
                EventCatalog.ORDER_CANCELLED)));
        EventEnvelope confirmed = current.decode(current.encode(wrap(current, new OrderConfirmed("order-1"))));
        EventEnvelope rejected = current.decode(current.encode(
                wrap(current, new OrderRejected("order-1", "not enough stock of SKU-1", List.of("SKU-1")))));

        assertThat(current.decodePayload(confirmed)).isEqualTo(new OrderConfirmed("order-1"));
        assertThat(current.decodePayload(rejected))
                .isEqualTo(new OrderRejected("order-1", "not enough stock of SKU-1", List.of("SKU-1")));
        assertThatThrownBy(() -> beforeTheSaga.decodePayload(confirmed)).isInstanceOf(UnknownEventTypeException.class);
        assertThatThrownBy(() -> beforeTheSaga.decodePayload(rejected)).isInstanceOf(UnknownEventTypeException.class);
    }

    private static OrderCreated orderCreated(String channel) {
        return new OrderCreated("order-1", "customer-7", "EUR", LINES, new BigDecimal("19.90"), channel);
    }

    private static EventEnvelope wrap(EventCodec codec, OrderEvent event) {
        return codec.wrap(event, EVENT_ID, AT, "order-service", null);
    }

    private static EventEnvelope envelope(String type, String version, ObjectNode payload) {
        return new EventEnvelope(
                EVENT_ID, type, EventVersion.parse(version), AT, "order-service", "order-1", null, payload);
    }
}
