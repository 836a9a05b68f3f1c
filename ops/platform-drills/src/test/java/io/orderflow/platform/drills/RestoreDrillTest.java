package io.orderflow.platform.drills;

import static org.assertj.core.api.Assertions.assertThat;

import io.orderflow.ops.drill.DrillReport;
import io.orderflow.ops.powercut.RestoreDrill;
import java.nio.file.Path;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/**
 * {@code ops/bin/drill restore}'s short version ({@code ops/power-cut}) in every build: the packaged platform backed
 * up under 5 orders a second, 8 s of orders before the backup and after it, restored on new directories and started,
 * and every invariant judged over what was acknowledged before the backup.
 */
class RestoreDrillTest {

    @Test
    void aBackupTakenUnderLoadRestoresEverythingAcknowledgedBeforeIt() throws Exception {
        DrillReport report = new RestoreDrill(
                        Path.of("..", ".."), Path.of("target", "restore-drill"), 5, Duration.ofSeconds(8))
                .run();

        String text = report.saveIn(Path.of("target", "drill-reports"));
        System.out.println(text);
        assertThat(report.passed()).as(text).isTrue();
        assertThat(text)
                .contains(
                        "backed up the running platform to ",
                        "restored the backup on ",
                        "every acknowledged order exists in its last acknowledged state or one step on",
                        "each acknowledged change is on orders once and in order, none invented",
                        "inventory's effects once",
                        "every mail sent once by Message-ID",
                        "analytics-service counted each event once");
    }
}
