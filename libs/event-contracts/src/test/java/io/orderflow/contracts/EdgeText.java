package io.orderflow.contracts;

import io.orderflow.property.Gen;

/**
 * Text at the edges of {@link StorableText}, drawn from a {@link Gen}: lengths next to the limit, whitespace of every
 * kind Java or a regular expression might count as blank, non-ASCII and supplementary characters (one code point, two
 * UTF-16 units), and now and then a control character or a lone surrogate at any place. About half the draws obey the
 * rule, so a property sees both sides of it.
 */
final class EdgeText {

    private static final int[] ORDINARY = {
        'a', 'Z', '0', '-', '_', '.', '~', 0xE9, 0xDF, 0x20AC, 0x4E2D, 0x1F600, 0x10FFFD
    };

    /** Java's whitespace (space separators but the no-break ones, line and paragraph separators) and the no-break ones. */
    private static final int[] WHITESPACE = {
        ' ', 0xA0, 0x1680, 0x2000, 0x2003, 0x2007, 0x200A, 0x2028, 0x2029, 0x202F, 0x205F, 0x3000, 0xFEFF
    };

    /** C0 and C1 control characters, tab and line breaks among them, and both halves of a surrogate pair alone. */
    private static final int[] FORBIDDEN = {
        0x00, 0x01, '\t', '\n', 0x0B, '\r', 0x1B, 0x1C, 0x1F, 0x7F, 0x80, 0x85, 0x9F, 0xD800, 0xDBFF, 0xDC00, 0xDFFF
    };

    private EdgeText() {}

    /** A string of 1 to {@code maxLength + 1} code points, the lengths 1, {@code maxLength} and one more favoured. */
    static String draw(Gen gen, int maxLength) {
        int length = gen.oneOf(1, maxLength - 1, maxLength, maxLength + 1, gen.ints(1, maxLength + 1));
        length = Math.max(1, length);
        boolean blank = gen.chance(0.1);
        StringBuilder text = new StringBuilder();
        for (int i = 0; i < length; i++) {
            int[] pool = blank || gen.chance(0.1) ? WHITESPACE : ORDINARY;
            text.appendCodePoint(pool[gen.ints(0, pool.length - 1)]);
        }
        if (gen.chance(0.35)) {
            int forbidden = FORBIDDEN[gen.ints(0, FORBIDDEN.length - 1)];
            int at = text.offsetByCodePoints(0, gen.ints(0, length - 1));
            text.replace(at, at + Character.charCount(text.codePointAt(at)), new String(Character.toChars(forbidden)));
        }
        return text.toString();
    }

    /**
     * The oracle: what {@link StorableText} must accept, written from its definition over code points (a lone
     * surrogate is a code point of its own in {@link String#codePoints()}).
     */
    static boolean storable(String text, int maxLength) {
        return !text.isBlank()
                && text.codePointCount(0, text.length()) <= maxLength
                && text.codePoints().noneMatch(c -> Character.isISOControl(c) || (c >= 0xD800 && c <= 0xDFFF));
    }
}
