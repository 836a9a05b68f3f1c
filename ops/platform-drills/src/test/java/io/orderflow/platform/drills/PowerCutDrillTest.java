package io.orderflow.platform.drills;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.orderflow.ops.drill.DrillReport;
import io.orderflow.ops.powercut.PowerCutDrill;
import io.orderflow.ops.powercut.PowerLossFileSystem;
import java.nio.file.Path;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/**
 * {@code ops/bin/drill power-cut}'s short version ({@code ops/power-cut}) in every build where FUSE is (skipped, naming
 * the packages, elsewhere): two power cuts of the whole platform 10 s apart under 5 orders a second, every invariant
 * after each restart and at the end, on a platform of its own.
 */
class PowerCutDrillTest {

    @Test
    void theWholePlatformLosesNothingAcknowledgedThroughTwoPowerCuts() throws Exception {
        assumeTrue(
                PowerLossFileSystem.unavailable().isEmpty(),
                () -> PowerLossFileSystem.unavailable().orElseThrow());
        DrillReport report = new PowerCutDrill(
                        Path.of("..", ".."), Path.of("target", "power-cut"), 2, 5, Duration.ofSeconds(10))
                .run();

        String text = report.saveIn(Path.of("target", "drill-reports"));
        System.out.println(text);
        assertThat(report.passed()).as(text).isTrue();
        assertThat(text)
                .contains("cut 1: ", "cut 2: ", "of them lost")
                .contains(
                        "[ok] after cut 1, every invariant over the ",
                        "[ok] after cut 2, every invariant over the ",
                        "every group caught up and every order answered",
                        "no acknowledged order lost at any cut",
                        "every acknowledged order exists in its last acknowledged state or one step on",
                        "each acknowledged change is on orders once and in order, none invented",
                        "every mail sent once by Message-ID",
                        "analytics-service counted each event once");
    }
}
