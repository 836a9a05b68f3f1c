package io.orderflow.orders.rest;

import io.orderflow.contracts.order.PayloadFields;
import jakarta.validation.Constraint;
import jakarta.validation.Payload;
import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * A free-text field such as a customer id, SKU or carrier: if present, not blank, at most {@link #max()} characters,
 * free of control characters (PostgreSQL text cannot hold NUL, and line breaks in an id are a bug, not data) and of
 * unpaired surrogates (which have no UTF-8 encoding). Null is valid; combine with {@code @NotNull} for required fields.
 *
 * <p>It is the event contracts' rule for text ({@code StorableText}), and each field's {@code max} is the contracts'
 * limit for the event field it becomes ({@link PayloadFields}), so a valid request always makes valid events. The
 * length here counts UTF-16 units, never fewer than the code points the contracts count: never more lenient.
 */
@Documented
@Constraint(validatedBy = PlainTextValidator.class)
@Target({ElementType.FIELD, ElementType.PARAMETER, ElementType.METHOD, ElementType.TYPE_USE})
@Retention(RetentionPolicy.RUNTIME)
public @interface PlainText {

    int max() default PayloadFields.MAX_ID_LENGTH;

    String message() default "must be non-blank text without control characters, at most {max} characters";

    Class<?>[] groups() default {};

    Class<? extends Payload>[] payload() default {};
}
