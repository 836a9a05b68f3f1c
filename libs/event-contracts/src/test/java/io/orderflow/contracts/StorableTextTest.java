package io.orderflow.contracts;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.orderflow.property.Properties;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/** The text rule, against an oracle written over code points, and the messages it gives. */
class StorableTextTest {

    @Test
    void acceptsExactlyWhatTheOracleCallsStorable() {
        AtomicInteger accepted = new AtomicInteger();
        AtomicInteger refused = new AtomicInteger();
        Properties.forAll(2000, gen -> {
            int maxLength = gen.ints(1, 120);
            String text = EdgeText.draw(gen, maxLength);
            boolean storable = EdgeText.storable(text, maxLength);

            if (storable) {
                assertThat(StorableText.require(text, "field", maxLength)).isSameAs(text);
                accepted.incrementAndGet();
            } else {
                assertThatThrownBy(() -> StorableText.require(text, "field", maxLength))
                        .isInstanceOf(IllegalArgumentException.class)
                        .hasMessageStartingWith("field ");
                refused.incrementAndGet();
            }
        });
        assertThat(accepted).as("draws that obey the rule").hasValueGreaterThan(300);
        assertThat(refused).as("draws that break it").hasValueGreaterThan(300);
    }

    static Stream<Arguments> brokenTexts() {
        return Stream.of(
                Arguments.of("customer\u0000-7", "must not contain control characters, found U+0000 at index 8"),
                Arguments.of("a\tb", "must not contain control characters, found U+0009 at index 1"),
                Arguments.of("line\nbreak", "must not contain control characters, found U+000A at index 4"),
                Arguments.of("del\u007F", "must not contain control characters, found U+007F at index 3"),
                Arguments.of("next\u0085line", "must not contain control characters, found U+0085 at index 4"),
                Arguments.of("\uD83D", "must not contain unpaired surrogates, found U+D83D at index 0"),
                Arguments.of("x\uDE00y", "must not contain unpaired surrogates, found U+DE00 at index 1"),
                Arguments.of("c".repeat(101), "must be at most 100 characters, was 101"));
    }

    @ParameterizedTest
    @MethodSource("brokenTexts")
    void namesTheFieldTheRuleAndWhereItIsBrokenButNotTheValue(String text, String problem) {
        assertThatThrownBy(() -> StorableText.require(text, "OrderCreated.customerId", 100))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("OrderCreated.customerId " + problem);
    }

    @Test
    void countsLengthInCodePointsAsJsonSchemaDoes() {
        String emoji = "\uD83D\uDE00"; // one code point, two UTF-16 units

        assertThat(StorableText.require(emoji.repeat(5), "f", 5)).hasSize(10);
        assertThatThrownBy(() -> StorableText.require(emoji.repeat(6), "f", 5))
                .hasMessage("f must be at most 5 characters, was 6");
    }

    @Test
    void aRequiredFieldMustBePresentAndNotBlankAnOptionalOneMayBeAbsent() {
        assertThatThrownBy(() -> StorableText.require(null, "OrderCancelled.reason", 500))
                .hasMessage("OrderCancelled.reason is required and must not be blank");
        assertThatThrownBy(() -> StorableText.require("\u2003 ", "OrderCancelled.reason", 500))
                .hasMessage("OrderCancelled.reason is required and must not be blank");
        assertThat(StorableText.optional(null, "OrderShipped.carrier", 100)).isNull();
        assertThatThrownBy(() -> StorableText.optional(" ", "OrderShipped.carrier", 100))
                .hasMessage("OrderShipped.carrier must be absent or not blank");
        assertThatThrownBy(() -> StorableText.optional("DHL\r\n", "OrderShipped.carrier", 100))
                .hasMessageContaining("OrderShipped.carrier must not contain control characters");
    }
}
