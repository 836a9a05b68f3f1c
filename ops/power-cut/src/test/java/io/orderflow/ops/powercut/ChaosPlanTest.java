package io.orderflow.ops.powercut;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.EnumSet;
import java.util.List;
import java.util.Set;
import java.util.stream.Collectors;
import java.util.stream.LongStream;
import org.junit.jupiter.api.Test;

class ChaosPlanTest {

    @Test
    void theSameSeedPlansTheSameFaultsAndAnotherSeedOthers() {
        ChaosPlan plan = ChaosPlan.draw(42, Duration.ofMinutes(30));

        assertThat(ChaosPlan.draw(42, Duration.ofMinutes(30))).isEqualTo(plan);
        assertThat(ChaosPlan.draw(42, Duration.ofMinutes(30)).describe()).isEqualTo(plan.describe());
        assertThat(ChaosPlan.draw(43, Duration.ofMinutes(30)).faults()).isNotEqualTo(plan.faults());
    }

    @Test
    void aTwoMinuteRunMeetsEveryKindOfFaultOnce() {
        for (long seed : LongStream.range(0, 50).toArray()) {
            ChaosPlan plan = ChaosPlan.draw(seed, Duration.ofMinutes(2));

            assertThat(plan.faults()).hasSize(6);
            assertThat(plan.faults().stream().map(p -> p.fault().kind()).collect(Collectors.toSet()))
                    .isEqualTo(EnumSet.allOf(ChaosFault.Kind.class));
        }
    }

    @Test
    void faultsArePlannedInOrderWithinTheRunAndApartFromEachOther() {
        ChaosPlan plan = ChaosPlan.draw(7, Duration.ofMinutes(30));

        assertThat(plan.faults()).hasSize(90);
        List<Integer> seconds =
                plan.faults().stream().map(ChaosPlan.Planned::atSecond).toList();
        assertThat(seconds).isSorted().allMatch(second -> second >= 10 && second < 30 * 60);
        for (int i = 1; i < seconds.size(); i++) {
            assertThat(seconds.get(i) - seconds.get(i - 1)).isGreaterThanOrEqualTo(20 - 20 / 3);
        }
    }

    @Test
    void aLongRunHitsEveryProcessAndEveryConsumer() {
        ChaosPlan plan = ChaosPlan.draw(11, Duration.ofMinutes(30));

        Set<String> killed = targets(plan, ChaosFault.Kind.KILL);
        Set<String> paused = targets(plan, ChaosFault.Kind.PAUSE);
        assertThat(Set.copyOf(union(killed, paused))).containsExactlyInAnyOrderElementsOf(ChaosFault.PROCESSES);
        assertThat(targets(plan, ChaosFault.Kind.SLOW_CONSUMER)).isSubsetOf(ChaosFault.CONSUMERS);
        plan.faults().stream()
                .map(ChaosPlan.Planned::fault)
                .filter(fault -> fault.kind() == ChaosFault.Kind.PAUSE)
                .forEach(fault -> assertThat(fault.duration()).isGreaterThan(ChaosFault.SESSION_TIMEOUT));
    }

    @Test
    void aRunShorterThanOneSpacingIsRefused() {
        assertThatThrownBy(() -> ChaosPlan.draw(1, Duration.ofSeconds(10)))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("at least 20 s");
    }

    @Test
    void everyRecordAFaultWritesHasAKeyOfItsOwn() {
        ChaosPlan plan = ChaosPlan.draw(5, Duration.ofMinutes(30));

        List<String> keys = plan.faults().stream()
                .map(ChaosPlan.Planned::fault)
                .filter(f -> f.kind() == ChaosFault.Kind.POISON || f.kind() == ChaosFault.Kind.UNKNOWN_MAJOR)
                .map(f -> f.recordKey(plan.seed()))
                .toList();
        assertThat(keys).isNotEmpty().doesNotHaveDuplicates().allMatch(key -> key.startsWith("chaos-5-"));
    }

    private static Set<String> targets(ChaosPlan plan, ChaosFault.Kind kind) {
        return plan.faults().stream()
                .map(ChaosPlan.Planned::fault)
                .filter(fault -> fault.kind() == kind)
                .map(ChaosFault::target)
                .collect(Collectors.toSet());
    }

    private static List<String> union(Set<String> a, Set<String> b) {
        return java.util.stream.Stream.concat(a.stream(), b.stream()).toList();
    }
}
