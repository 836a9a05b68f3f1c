package io.orderflow.contracts;

import static org.assertj.core.api.Assertions.assertThat;

import io.orderflow.property.Properties;
import org.junit.jupiter.api.Test;

class EventVersionPropertiesTest {

    /** Digits and the characters a version is written with or might be mistyped with. */
    private static final String VERSION_CHARS = "0123456789.- v";

    @Test
    void formatThenParseGivesTheSameVersion() {
        Properties.forAll(1000, gen -> {
            int major = gen.ints(0, 999_999_999);
            int minor = gen.ints(0, 999_999_999);
            var version = new EventVersion(major, minor);

            assertThat(EventVersion.parse(version.toString())).isEqualTo(version);
        });
    }

    /** Oracle: text is accepted only if it is the one spelling the parsed version formats back to. */
    @Test
    void parseAcceptsOnlyTheCanonicalSpelling() {
        Properties.forAll(1000, gen -> {
            String text = gen.string(0, 12, VERSION_CHARS);
            EventVersion parsed;
            try {
                parsed = EventVersion.parse(text);
            } catch (IllegalArgumentException rejected) {
                return;
            }
            assertThat(parsed).hasToString(text);
        });
    }
}
