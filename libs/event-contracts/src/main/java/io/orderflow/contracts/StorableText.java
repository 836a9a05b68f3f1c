package io.orderflow.contracts;

/**
 * The rule every text field of an event obeys: text that every consumer can store, show and index as it is. A field
 * that breaks it makes the event malformed ({@link MalformedEventException}, dead-lettered at once), because no retry
 * can make it storable.
 *
 * <ul>
 *   <li><b>Not blank</b> ({@link String#isBlank()}): a required field of only whitespace says nothing.
 *   <li><b>No control characters</b>, U+0000-U+001F and U+007F-U+009F ({@link Character#isISOControl}), tab and line
 *       breaks included. PostgreSQL's {@code text} cannot hold U+0000 at all (SQLSTATE 22021); the others are legal
 *       there but wrong in what the fields become: an id with a line break forges a header when it is written into a
 *       mail's subject or recipient, a line break in a reason forges a log line. order-service, which writes every free
 *       text the events carry, refuses all of them at its REST API; the contracts refuse the same set so that no other
 *       producer can publish what order-service would refuse.
 *   <li><b>No unpaired surrogates</b>: a lone UTF-16 half has no UTF-8 encoding, so a consumer could neither store it
 *       nor forward it unchanged (encoders replace it by {@code ?}).
 *   <li><b>At most {@code maxLength} characters</b>, counted in Unicode code points as JSON Schema's {@code maxLength}
 *       counts them. Ids end up in primary keys and indexes, whose entries PostgreSQL limits to about 2.7 kB; the
 *       limits of each field are {@link io.orderflow.contracts.order.PayloadFields}'s.
 * </ul>
 *
 * <p>Messages name the field and the position of the offending character, never the value: it may be long, and the
 * message becomes a dead-letter header. The JSON Schemas state the same rule with {@code maxLength}, a pattern that
 * needs one character that is neither whitespace nor control, and a {@code not} pattern of the forbidden characters
 * ({@code EventSchemaTextRulesTest} holds the two to agreement). Stateless, thread-safe.
 */
public final class StorableText {

    private StorableText() {}

    /**
     * {@code value} if it is present and obeys the rule, else an {@link IllegalArgumentException} naming
     * {@code field} and the rule broken.
     */
    public static String require(String value, String field, int maxLength) {
        if (value == null || value.isBlank()) {
            throw new IllegalArgumentException(field + " is required and must not be blank");
        }
        return check(value, field, maxLength);
    }

    /** {@code value} if it is null (absent) or obeys the rule, else an {@link IllegalArgumentException}. */
    public static String optional(String value, String field, int maxLength) {
        if (value == null) {
            return null;
        }
        if (value.isBlank()) {
            throw new IllegalArgumentException(field + " must be absent or not blank");
        }
        return check(value, field, maxLength);
    }

    private static String check(String value, String field, int maxLength) {
        // length() counts UTF-16 units, never fewer than code points: only a long value needs counting.
        if (value.length() > maxLength) {
            int codePoints = value.codePointCount(0, value.length());
            if (codePoints > maxLength) {
                throw new IllegalArgumentException(
                        field + " must be at most " + maxLength + " characters, was " + codePoints);
            }
        }
        for (int i = 0; i < value.length(); i++) {
            char c = value.charAt(i);
            if (Character.isISOControl(c)) {
                throw new IllegalArgumentException(
                        field + " must not contain control characters, found " + codePoint(c) + " at index " + i);
            }
            if (Character.isHighSurrogate(c)
                    && i + 1 < value.length()
                    && Character.isLowSurrogate(value.charAt(i + 1))) {
                i++;
            } else if (Character.isSurrogate(c)) {
                throw new IllegalArgumentException(
                        field + " must not contain unpaired surrogates, found " + codePoint(c) + " at index " + i);
            }
        }
        return value;
    }

    private static String codePoint(char c) {
        return String.format("U+%04X", (int) c);
    }
}
