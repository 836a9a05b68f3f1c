package io.orderflow.property;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

class PropertiesTest {
    @AfterEach
    void forgetTheReplaySeed() {
        System.clearProperty(Properties.SEED_PROPERTY);
    }

    @Test
    void runsEveryTryWithADifferentSeed() {
        Set<Long> seeds = new HashSet<>();
        Properties.forAll(200, gen -> seeds.add(gen.seed()));
        assertThat(seeds).hasSize(200);
    }

    @Test
    void aFailureNamesItsSeedAndTheReplayDrawsTheSameValues() {
        List<Integer> drawn = new ArrayList<>();
        Throwable failure = org.assertj.core.api.Assertions.catchThrowable(() -> Properties.forAll(1_000, gen -> {
            drawn.clear();
            for (int i = 0; i < 5; i++) {
                drawn.add(gen.ints(0, 1_000));
            }
            assertThat(drawn.getFirst()).isLessThan(900);
        }));
        assertThat(failure).isInstanceOf(AssertionError.class).hasMessageContaining("-Dproperty.seed=");
        assertThat(failure.getCause()).isInstanceOf(AssertionError.class);
        Matcher seed = Pattern.compile("with seed (-?\\d+)").matcher(failure.getMessage());
        assertThat(seed.find()).isTrue();
        List<Integer> failing = List.copyOf(drawn);

        System.setProperty(Properties.SEED_PROPERTY, seed.group(1));
        AtomicInteger tries = new AtomicInteger();
        assertThatThrownBy(() -> Properties.forAll(1_000, gen -> {
                    tries.incrementAndGet();
                    drawn.clear();
                    for (int i = 0; i < 5; i++) {
                        drawn.add(gen.ints(0, 1_000));
                    }
                    assertThat(drawn.getFirst()).isLessThan(900);
                }))
                .hasMessageContaining("try 1 of 1 with seed " + seed.group(1));
        assertThat(tries).hasValue(1);
        assertThat(drawn).isEqualTo(failing);
    }

    @Test
    void checkedExceptionsFailTheProperty() {
        assertThatThrownBy(() -> Properties.forAll(3, gen -> {
                    throw new java.io.IOException("disk full");
                }))
                .isInstanceOf(AssertionError.class)
                .hasMessageContaining("disk full")
                .hasCauseInstanceOf(java.io.IOException.class);
    }

    @Test
    void numbersStayInTheirRangeAndReachBothEdges() {
        Set<Integer> seen = new HashSet<>();
        AtomicLong outside = new AtomicLong();
        Properties.forAll(2_000, gen -> {
            int value = gen.ints(-5, 1_000_000);
            if (value < -5 || value > 1_000_000) {
                outside.incrementAndGet();
            }
            seen.add(value);
        });
        assertThat(outside).hasValue(0);
        assertThat(seen).contains(-5, 1_000_000, 0, -4, 999_999);
    }

    @Test
    void extremeRangesAreDrawnWithoutOverflow() {
        Set<Long> seen = new HashSet<>();
        Properties.forAll(2_000, gen -> seen.add(gen.anyLong()));
        assertThat(seen).contains(Long.MIN_VALUE, Long.MAX_VALUE, 0L);
    }

    @Test
    void listsTakeTheirSmallestAndLargestSizes() {
        Set<Integer> sizes = new HashSet<>();
        Properties.forAll(1_000, gen -> {
            List<Integer> list = gen.list(2, 40, g -> g.ints(0, 9));
            assertThat(list).hasSizeBetween(2, 40);
            sizes.add(list.size());
        });
        assertThat(sizes).contains(2, 40);
    }

    @Test
    void stringsAreValidTextWithControlAndSupplementaryCharacters() {
        AtomicInteger withNul = new AtomicInteger();
        AtomicInteger supplementary = new AtomicInteger();
        Properties.forAll(1_000, gen -> {
            String text = gen.anyString(0, 30);
            assertThat(text.codePointCount(0, text.length())).isBetween(0, 30);
            assertThat(text.codePoints().noneMatch(cp -> cp >= 0xD800 && cp <= 0xDFFF))
                    .isTrue();
            if (text.indexOf('\u0000') >= 0) {
                withNul.incrementAndGet();
            }
            if (text.codePoints().anyMatch(Character::isSupplementaryCodePoint)) {
                supplementary.incrementAndGet();
            }
        });
        assertThat(withNul.get()).isPositive();
        assertThat(supplementary.get()).isPositive();
    }

    @Test
    void sameSeedSameValues() {
        Gen first = new Gen(42);
        Gen second = new Gen(42);
        for (int i = 0; i < 100; i++) {
            assertThat(second.anyString(0, 10)).isEqualTo(first.anyString(0, 10));
            assertThat(second.uuid()).isEqualTo(first.uuid());
        }
    }

    @Test
    void uuidsAreVersionFour() {
        Properties.forAll(100, gen -> {
            java.util.UUID uuid = gen.uuid();
            assertThat(uuid.version()).isEqualTo(4);
            assertThat(uuid.variant()).isEqualTo(2);
        });
    }
}
