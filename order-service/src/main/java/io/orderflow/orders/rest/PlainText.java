package io.orderflow.orders.rest;

import jakarta.validation.Constraint;
import jakarta.validation.Payload;
import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * A free-text field such as a customer id, SKU or carrier: if present, not blank, at most {@link #max()} characters,
 * and free of control characters (PostgreSQL text cannot hold NUL, and line breaks in an id are a bug, not data).
 * Null is valid; combine with {@code @NotNull} for required fields.
 */
@Documented
@Constraint(validatedBy = PlainTextValidator.class)
@Target({ElementType.FIELD, ElementType.PARAMETER, ElementType.METHOD, ElementType.TYPE_USE})
@Retention(RetentionPolicy.RUNTIME)
public @interface PlainText {

    int max() default 100;

    String message() default "must be non-blank text without control characters, at most {max} characters";

    Class<?>[] groups() default {};

    Class<? extends Payload>[] payload() default {};
}
