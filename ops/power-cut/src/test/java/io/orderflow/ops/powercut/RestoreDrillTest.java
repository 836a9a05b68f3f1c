package io.orderflow.ops.powercut;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import org.junit.jupiter.api.Test;

class RestoreDrillTest {
    private static final OrderJournal.Run RUN = new OrderJournal.Run("restore-", "sku-1", 100, 0);

    @Test
    void asOfTheBackupWhatCameBeforeIsCertainWhatCameDuringUncertainAndWhatCameAfterAbsent() {
        OrderJournal before = new OrderJournal(
                RUN,
                List.of(
                        order("a", "o-a", List.of("CREATED", "CONFIRMED"), List.of()),
                        order("b", "o-b", List.of("CREATED"), List.of()),
                        order("c", null, List.of(), List.of("CREATED"))));
        OrderJournal after = new OrderJournal(
                RUN,
                List.of(
                        order("a", "o-a", List.of("CREATED", "CONFIRMED", "PAID"), List.of("SHIPPED")),
                        order("b", "o-b", List.of("CREATED", "CONFIRMED"), List.of()),
                        order("c", "o-c", List.of("CREATED"), List.of()),
                        order("d", "o-d", List.of("CREATED", "REJECTED"), List.of()),
                        order("e", null, List.of(), List.of())));

        OrderJournal asOf = RestoreDrill.asOfBackup(before, after);

        assertThat(asOf.orders())
                .containsExactly(
                        order("a", "o-a", List.of("CREATED", "CONFIRMED"), List.of("PAID", "SHIPPED")),
                        order("b", "o-b", List.of("CREATED"), List.of("CONFIRMED")),
                        order("c", null, List.of(), List.of("CREATED")),
                        order("d", null, List.of(), List.of("CREATED", "REJECTED")));
        assertThat(asOf.placed()).extracting(OrderJournal.Order::orderId).containsExactly("o-a", "o-b");
        assertThat(asOf.orders().get(3).placementUncertain()).isTrue();
    }

    private static OrderJournal.Order order(String customer, String id, List<String> acked, List<String> uncertain) {
        return new OrderJournal.Order("restore-" + customer, "sku-1", id, acked, uncertain);
    }
}
