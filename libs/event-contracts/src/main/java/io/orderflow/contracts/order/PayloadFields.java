package io.orderflow.contracts.order;

import io.orderflow.contracts.StorableText;
import java.math.BigDecimal;
import java.util.regex.Pattern;

/**
 * The field rules the payloads share. They throw {@link IllegalArgumentException} naming the record and field, never a
 * {@link NullPointerException}: the codec reports the message when a decoded payload breaks a rule.
 *
 * <p>Every text field obeys {@link StorableText} (not blank, no control characters, no unpaired surrogates) within a
 * length of its kind, below. The limits are those of order-service's REST API, which writes these fields from what
 * clients send, so that every order it accepts makes valid events; the consuming services' columns are unbounded
 * {@code text}, but ids are keys of their indexes, whose entries PostgreSQL limits to about 2.7 kB (100 code points
 * are at most 400 bytes of UTF-8). The JSON Schemas give each field the same {@code maxLength}.
 */
public final class PayloadFields {

    /**
     * Ids: every {@code orderId} (also the envelope's), {@code customerId}, every {@code sku}. order-service allows 100
     * characters for customer ids and SKUs; its order ids are UUIDs, 36.
     */
    public static final int MAX_ID_LENGTH = 100;

    /** {@code OrderCreated.channel}, as order-service allows. */
    public static final int MAX_CHANNEL_LENGTH = 50;

    /** {@code OrderShipped.carrier}, as order-service allows. */
    public static final int MAX_CARRIER_LENGTH = 100;

    /** A provider's reference: {@code OrderPaid.paymentReference}, {@code OrderShipped.trackingNumber}. */
    public static final int MAX_REFERENCE_LENGTH = 200;

    /** A reason in words: {@code OrderCancelled.reason}, {@code InventoryRejected.reason}. */
    public static final int MAX_REASON_LENGTH = 500;

    static final int MAX_DIGITS = 18;
    private static final Pattern CURRENCY = Pattern.compile("[A-Z]{3}");

    private PayloadFields() {}

    /** A required id, at most {@value #MAX_ID_LENGTH} characters of {@link StorableText}. */
    public static String requireId(String value, String field) {
        return StorableText.require(value, field, MAX_ID_LENGTH);
    }

    /** Required {@link StorableText} of at most {@code maxLength} characters. */
    public static String requireText(String value, String field, int maxLength) {
        return StorableText.require(value, field, maxLength);
    }

    /** Absent (null), or {@link StorableText} of at most {@code maxLength} characters. */
    public static String optionalText(String value, String field, int maxLength) {
        return StorableText.optional(value, field, maxLength);
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
