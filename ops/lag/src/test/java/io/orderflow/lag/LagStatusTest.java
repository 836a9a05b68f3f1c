package io.orderflow.lag;

import static org.assertj.core.api.Assertions.assertThat;

import io.orderflow.lag.LagStatus.Reading;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The status rules on hand-made windows of readings, one second apart over a ten-second window. */
class LagStatusTest {

    private static final long WINDOW = 10_000;

    /** Readings one second apart: pairs of (committed, lag). */
    private static List<Reading> readings(long... committedAndLag) {
        List<Reading> readings = new ArrayList<>();
        for (int i = 0; i < committedAndLag.length; i += 2) {
            readings.add(new Reading(i / 2 * 1000L, committedAndLag[i], committedAndLag[i + 1]));
        }
        return readings;
    }

    @Test
    void aGroupAtTheEndIsOkWhateverCameBefore() {
        assertThat(LagStatus.of(readings(0, 50, 10, 80, 100, 0), WINDOW, true)).isEqualTo(LagStatus.OK);
        assertThat(LagStatus.of(readings(100, 0), WINDOW, false)).isEqualTo(LagStatus.OK);
    }

    @Test
    void lagThatGrowsAtEveryReadingIsWarn() {
        assertThat(LagStatus.of(readings(0, 10, 5, 20, 10, 35, 15, 50), WINDOW, true))
                .isEqualTo(LagStatus.WARN);
    }

    @Test
    void lagThatShrinksOrHoldsSteadyWhileCommittingIsOk() {
        assertThat(LagStatus.of(readings(0, 50, 20, 40, 40, 30), WINDOW, true)).isEqualTo(LagStatus.OK);
        assertThat(LagStatus.of(readings(0, 30, 30, 30, 60, 30), WINDOW, true)).isEqualTo(LagStatus.OK);
    }

    @Test
    void aReadingAtZeroInTheWindowKeepsGrowthFromBeingAWarning() {
        assertThat(LagStatus.of(readings(0, 0, 0, 5, 0, 10), WINDOW, true)).isEqualTo(LagStatus.OK);
    }

    @Test
    void anOffsetThatDoesNotMoveForTheWholeWindowWithLagIsStall() {
        long[] still = new long[22];
        for (int i = 0; i < still.length; i += 2) {
            still[i] = 40;
            still[i + 1] = 60;
        }
        assertThat(LagStatus.of(readings(still), WINDOW, true)).isEqualTo(LagStatus.STALL);
        assertThat(LagStatus.of(readings(40, 60, 40, 60, 40, 60), WINDOW, true))
                .as("not a stall until it lasted the window")
                .isEqualTo(LagStatus.OK);
    }

    @Test
    void anIdlePartitionWhoseNextRecordJustArrivedIsNoStall() {
        long[] idle = new long[22];
        for (int i = 0; i < idle.length; i += 2) {
            idle[i] = 40;
            idle[i + 1] = 0;
        }
        idle[idle.length - 1] = 1;
        assertThat(LagStatus.of(readings(idle), WINDOW, true)).isEqualTo(LagStatus.OK);
    }

    @Test
    void lagWithoutMembersIsStop() {
        assertThat(LagStatus.of(readings(40, 60, 40, 70), WINDOW, false)).isEqualTo(LagStatus.STOP);
    }

    @Test
    void anOffsetGoingBackwardsIsRewindEvenInAnEmptyGroup() {
        assertThat(LagStatus.of(readings(100, 0, 0, 100, 0, 100), WINDOW, false))
                .isEqualTo(LagStatus.REWIND);
    }

    @Test
    void theWorstOfTwoStatusesWins() {
        assertThat(LagStatus.OK.worst(LagStatus.WARN)).isEqualTo(LagStatus.WARN);
        assertThat(LagStatus.STOP.worst(LagStatus.STALL)).isEqualTo(LagStatus.STOP);
    }

    @Test
    void growthIsTheSlopeInRecordsPerSecond() {
        assertThat(LagStatus.growthPerSecond(readings(0, 10, 0, 30, 0, 50))).isEqualTo(20.0);
        assertThat(LagStatus.growthPerSecond(readings(0, 10))).isZero();
    }
}
