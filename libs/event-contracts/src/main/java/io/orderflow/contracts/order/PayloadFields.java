package io.orderflow.contracts.order;

import java.math.BigDecimal;
import java.util.regex.Pattern;

/**
 * The field rules the order payloads share. They throw {@link IllegalArgumentException} naming the record and field,
 * never a {@link NullPointerException}: the codec reports the message when a decoded payload breaks a rule.
 */
public final class PayloadFields {

    static final int MAX_DIGITS = 18;
    private static final Pattern CURRENCY = Pattern.compile("[A-Z]{3}");

    private PayloadFields() {}

    public static String requireText(String value, String field) {
        if (value == null || value.isBlank()) {
            throw new IllegalArgumentException(field + " is required and must not be blank");
        }
        return value;
    }

    static String optionalText(String value, String field) {
        if (value != null && value.isBlank()) {
            throw new IllegalArgumentException(field + " must be absent or not blank");
        }
        return value;
    }

    public static String requireCurrency(String value, String field) {
        if (value == null || !CURRENCY.matcher(value).matches()) {
            throw new IllegalArgumentException(
                    field + " must be an ISO 4217 code (three upper-case letters), was " + quoted(value));
        }
        return value;
    }

    /**
     * A non-negative amount with at most {@value #MAX_DIGITS} digits before and after the point, in a scale of at
     * least zero ({@code 1E+3} becomes {@code 1000}, so it round-trips exactly). The bound is far beyond any price, and
     * it keeps a hostile {@code "1e999999999"} from making a reader print a billion digits.
     */
    public static BigDecimal requireAmount(BigDecimal amount, String field) {
        if (amount == null) {
            throw new IllegalArgumentException(field + " is required");
        }
        if (amount.scale() > MAX_DIGITS || amount.precision() - amount.scale() > MAX_DIGITS) {
            throw new IllegalArgumentException(
                    field + " must have at most " + MAX_DIGITS + " digits before and after the point, was " + amount);
        }
        if (amount.signum() < 0) {
            throw new IllegalArgumentException(field + " must not be negative, was " + amount.toPlainString());
        }
        return amount.scale() < 0 ? amount.setScale(0) : amount;
    }

    private static String quoted(String value) {
        return value == null ? "null" : "\"" + value + "\"";
    }
}
