package io.orderflow.contracts;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.tuple;

import io.orderflow.contracts.order.OrderCancelled;
import io.orderflow.contracts.order.OrderConfirmed;
import io.orderflow.contracts.order.OrderCreated;
import io.orderflow.contracts.order.OrderPaid;
import io.orderflow.contracts.order.OrderRejected;
import io.orderflow.contracts.order.OrderShipped;
import java.util.List;
import org.junit.jupiter.api.Test;

class EventCatalogTest {

    private final EventCatalog catalog = EventCatalog.orderEvents();

    @Test
    void knowsEachOrderEventWithItsPayloadRecordAndVersions() {
        assertThat(catalog.types())
                .extracting(
                        EventType::name,
                        EventType::payloadType,
                        t -> t.versions().toString())
                .containsExactly(
                        tuple("OrderCreated", OrderCreated.class, "[1.0, 1.1]"),
                        tuple("OrderPaid", OrderPaid.class, "[1.0]"),
                        tuple("OrderShipped", OrderShipped.class, "[1.0]"),
                        tuple("OrderCancelled", OrderCancelled.class, "[1.0]"),
                        tuple("OrderConfirmed", OrderConfirmed.class, "[1.0]"),
                        tuple("OrderRejected", OrderRejected.class, "[1.0]"));
    }

    @Test
    void findsTypesByWireNameOnly() {
        assertThat(catalog.find("OrderCreated")).contains(EventCatalog.ORDER_CREATED);
        assertThat(catalog.find("orderCreated")).isEmpty();
        assertThat(catalog.find("OrderRefunded")).isEmpty();
    }

    @Test
    void findsTheTypeOfAPayload() {
        assertThat(catalog.typeOf(new OrderCancelled("o", "r"))).isEqualTo(EventCatalog.ORDER_CANCELLED);
        assertThat(EventCatalog.ORDER_CREATED.current()).isEqualTo(EventVersion.V1_1);
    }

    @Test
    void typeReadsEveryVersionOfItsMajorOnly() {
        assertThat(EventCatalog.ORDER_PAID.reads(EventVersion.parse("1.3"))).isTrue();
        assertThat(EventCatalog.ORDER_PAID.reads(EventVersion.parse("2.0"))).isFalse();
        assertThat(EventCatalog.ORDER_PAID.reads(EventVersion.parse("0.1"))).isFalse();
    }

    @Test
    void refusesToCatalogueANameOrPayloadTwice() {
        var again = new EventType<>("OrderPaid", OrderShipped.class, List.of(EventVersion.V1_0));

        assertThatThrownBy(() -> new EventCatalog(List.of(EventCatalog.ORDER_PAID, again)))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("OrderPaid");
        assertThatThrownBy(() -> new EventCatalog(List.of(EventCatalog.ORDER_SHIPPED, again)))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining(OrderShipped.class.getName());
    }

    @Test
    void typeVersionsMustAscendWithinOneMajor() {
        assertThatThrownBy(() ->
                        new EventType<>("OrderPaid", OrderPaid.class, List.of(EventVersion.V1_1, EventVersion.V1_0)))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("[1.1, 1.0]");
        assertThatThrownBy(() -> new EventType<>(
                        "OrderPaid", OrderPaid.class, List.of(EventVersion.V1_0, EventVersion.parse("2.0"))))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("within one major");
        assertThatThrownBy(() -> new EventType<>("OrderPaid", OrderPaid.class, List.of()))
                .isInstanceOf(IllegalArgumentException.class);
    }
}
