package io.orderflow.orders.rest;

import jakarta.validation.Constraint;
import jakarta.validation.Payload;
import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * An ISO 4217 currency code the JDK knows ({@link java.util.Currency#getAvailableCurrencies()}), written as three
 * upper-case letters as the event contracts require: "EUR", not "eur". Null is valid; combine with {@code @NotNull}.
 */
@Documented
@Constraint(validatedBy = IsoCurrencyValidator.class)
@Target({ElementType.FIELD, ElementType.PARAMETER, ElementType.METHOD, ElementType.TYPE_USE})
@Retention(RetentionPolicy.RUNTIME)
public @interface IsoCurrency {

    String message() default "must be an ISO 4217 currency code in upper case, such as EUR or USD";

    Class<?>[] groups() default {};

    Class<? extends Payload>[] payload() default {};
}
