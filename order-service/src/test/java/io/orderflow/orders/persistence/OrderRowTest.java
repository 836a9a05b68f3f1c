package io.orderflow.orders.persistence;

import static io.orderflow.orders.OrderRequests.createOrder;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

import io.orderflow.orders.OrderTables;
import io.orderflow.orders.OrderTables.OrderState;
import io.orderflow.orders.PostgresResource;
import io.orderflow.orders.domain.OrderTransition;
import io.orderflow.testing.quarkus.BrokerResource;
import io.quarkus.narayana.jta.QuarkusTransaction;
import io.quarkus.test.common.ResourceArg;
import io.quarkus.test.common.WithTestResource;
import io.quarkus.test.junit.QuarkusTest;
import jakarta.inject.Inject;
import jakarta.persistence.OptimisticLockException;
import java.time.Instant;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.stream.Stream;
import javax.sql.DataSource;
import org.junit.jupiter.api.Test;

@QuarkusTest
@WithTestResource(PostgresResource.class)
@WithTestResource(value = BrokerResource.class, initArgs = @ResourceArg(name = "topics", value = "inventory:3"))
class OrderRowTest {

    @Inject
    DataSource dataSource;

    /** Without the advisory lock, a row changed after it was read is not overwritten: the update finds no row. */
    @Test
    void aStaleUpdateIsRefusedEvenWithoutTheLock() {
        UUID id = createOrder();
        OrderTables tables = new OrderTables(dataSource);

        Throwable failure =
                catchThrowable(() -> QuarkusTransaction.requiringNew().run(() -> {
                    OrderRow row = OrderRow.findById(id);
                    // Another transaction: this thread's connections are enlisted in the test's transaction.
                    CompletableFuture.runAsync(() ->
                                    tables.execute("UPDATE orders SET status = 'PAID', version = 2 WHERE id = ?", id))
                            .join();
                    row.advance(OrderTransition.CANCEL, Instant.now());
                    OrderRow.flush();
                }));

        assertThat(Stream.iterate(failure, e -> e != null, Throwable::getCause))
                .hasAtLeastOneElementOfType(OptimisticLockException.class);
        assertThat(tables.order(id))
                .get()
                .extracting(OrderState::status, OrderState::version)
                .containsExactly("PAID", 2L);
    }

    @Test
    void aNewOrderIsStoredAtVersionOneWithItsLinesInOrder() {
        UUID id = createOrder();

        OrderRow row = QuarkusTransaction.requiringNew().call(() -> {
            OrderRow found = OrderRow.findById(id);
            found.lines.size();
            return found;
        });

        assertThat(row.version).isEqualTo(1);
        assertThat(row.toOrder().items()).extracting(item -> item.sku()).containsExactly("SKU-1", "SKU-2");
        assertThat(new OrderTables(dataSource).number("SELECT max(line_no) FROM order_lines WHERE order_id = ?", id))
                .isEqualTo(2);
    }
}
