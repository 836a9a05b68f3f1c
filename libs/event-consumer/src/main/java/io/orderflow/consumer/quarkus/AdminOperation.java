package io.orderflow.consumer.quarkus;

import jakarta.ws.rs.NameBinding;
import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * Marks a resource method (or every method of a resource class) as an admin operation: one that changes a service's
 * state outside the order flow, such as a stock adjustment or a drill's switch. {@link AdminTokenFilter} admits such a
 * request only with {@code Authorization: Bearer <orderflow.admin.token>}. Reads stay unmarked and open.
 */
@NameBinding
@Documented
@Retention(RetentionPolicy.RUNTIME)
@Target({ElementType.TYPE, ElementType.METHOD})
public @interface AdminOperation {}
