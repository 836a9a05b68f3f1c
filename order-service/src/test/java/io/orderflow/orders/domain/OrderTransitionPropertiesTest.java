package io.orderflow.orders.domain;

import static io.orderflow.orders.domain.OrderTransition.CANCEL;
import static io.orderflow.orders.domain.OrderTransition.PAY;
import static io.orderflow.orders.domain.OrderTransition.SHIP;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Set;
import java.util.UUID;
import net.jqwik.api.Assume;
import net.jqwik.api.Example;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.Size;

class OrderTransitionPropertiesTest {

    private static final UUID ORDER = UUID.fromString("3f2b9c1e-7a4d-4e5f-9a0b-1c2d3e4f5a6b");

    /** The oracle: every sequence of changes the lifecycle allows a new order, written out by hand. */
    private static final Set<List<OrderTransition>> LIFECYCLE =
            Set.of(List.of(), List.of(PAY), List.of(PAY, SHIP), List.of(CANCEL), List.of(PAY, CANCEL));

    @Property
    void whateverIsAttemptedTheAcceptedChangesFollowTheLifecycle(
            @ForAll @Size(max = 8) List<OrderTransition> attempts) {
        OrderStatus status = OrderStatus.CREATED;
        List<OrderTransition> accepted = new ArrayList<>();
        for (OrderTransition attempt : attempts) {
            if (attempt.isAllowedFrom(status)) {
                status = attempt.applyTo(ORDER, status);
                accepted.add(attempt);
            }
        }

        assertThat(LIFECYCLE).contains(accepted);
        assertThat(status)
                .isEqualTo(
                        accepted.isEmpty()
                                ? OrderStatus.CREATED
                                : accepted.getLast().target());
    }

    @Property
    void aRefusedChangeNamesTheOrderItsStatusAndTheChange(
            @ForAll OrderStatus status, @ForAll OrderTransition transition) {
        Assume.that(!transition.isAllowedFrom(status));

        assertThatThrownBy(() -> transition.applyTo(ORDER, status))
                .isInstanceOf(IllegalTransitionException.class)
                .hasMessageContaining(ORDER.toString())
                .hasMessageContaining(status.name())
                .hasMessageContaining(transition.verb());
    }

    @Example
    void shippedAndCancelledAreFinal() {
        assertThat(Arrays.stream(OrderStatus.values()).filter(OrderStatus::isFinal))
                .containsExactlyInAnyOrder(OrderStatus.SHIPPED, OrderStatus.CANCELLED);
    }
}
