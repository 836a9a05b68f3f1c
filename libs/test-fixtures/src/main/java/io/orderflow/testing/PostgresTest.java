package io.orderflow.testing;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Inherited;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * A test that needs a real PostgreSQL: {@link io.orderflow.postgres.PostgresDatabase} parameters of its test
 * methods, constructors and lifecycle methods are resolved by {@link PostgresExtension}.
 *
 * <pre>{@code
 * @PostgresTest(service = "order-service")
 * class OrderRepositoryTest {
 *     @Test
 *     void savesAnOrder(PostgresDatabase database) { ... }              // order_service
 *
 *     @Test
 *     void readsStock(@ServiceDatabase("inventory-service") PostgresDatabase inventory) { ... }
 * }
 * }</pre>
 *
 * <p>May also annotate a single method, whose {@link #service()} then wins over the class's.
 */
@Documented
@Inherited
@Retention(RetentionPolicy.RUNTIME)
@Target({ElementType.TYPE, ElementType.METHOD})
@ExtendWith(PostgresExtension.class)
public @interface PostgresTest {

    /**
     * The service whose database un-annotated {@code PostgresDatabase} parameters receive, e.g.
     * {@code "order-service"}. Empty: every parameter must say so with {@link ServiceDatabase}.
     */
    String service() default "";
}
