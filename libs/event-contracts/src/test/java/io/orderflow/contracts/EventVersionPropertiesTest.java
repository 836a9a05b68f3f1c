package io.orderflow.contracts;

import static org.assertj.core.api.Assertions.assertThat;

import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.CharRange;
import net.jqwik.api.constraints.Chars;
import net.jqwik.api.constraints.IntRange;
import net.jqwik.api.constraints.StringLength;

class EventVersionPropertiesTest {

    @Property
    void formatThenParseGivesTheSameVersion(
            @ForAll @IntRange(min = 0, max = 999_999_999) int major,
            @ForAll @IntRange(min = 0, max = 999_999_999) int minor) {
        var version = new EventVersion(major, minor);

        assertThat(EventVersion.parse(version.toString())).isEqualTo(version);
    }

    /** Oracle: text is accepted only if it is the one spelling the parsed version formats back to. */
    @Property
    void parseAcceptsOnlyTheCanonicalSpelling(
            @ForAll @StringLength(max = 12) @CharRange(from = '0', to = '9') @Chars({'.', '-', ' ', 'v'}) String text) {
        EventVersion parsed;
        try {
            parsed = EventVersion.parse(text);
        } catch (IllegalArgumentException rejected) {
            return;
        }
        assertThat(parsed).hasToString(text);
    }
}
