package io.orderflow.ops.drill;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * {@code ops/bin/drill}'s command line: every drill takes the options its help names, with the platform's addresses; an
 * option it does not take, an unknown drill or a missing value is refused naming it, rather than ignored.
 */
class DrillMainTest {

    @Test
    void everyDrillTakesTheOptionsItsHelpNamesAndThePlatformsAddresses() {
        assertThat(DrillMain.DRILL_OPTIONS).hasSize(7);
        DrillMain.DRILL_OPTIONS.forEach((drill, own) -> {
            assertThat(DrillMain.USAGE).contains("  " + drill + " ");
            List<String> args = new ArrayList<>(List.of(drill));
            for (String option : own) {
                assertThat(DrillMain.USAGE).as(drill).contains(option);
                args.addAll(List.of(option, "value-of" + option));
            }
            for (String option : DrillMain.TARGET_OPTIONS) {
                assertThat(DrillTarget.OPTIONS).contains(option);
                args.addAll(List.of(option, "value-of" + option));
            }

            Map<String, String> options = DrillMain.options(args.toArray(String[]::new));

            assertThat(options).hasSize(own.size() + DrillMain.TARGET_OPTIONS.size());
            assertThat(options).containsEntry(own.getFirst(), "value-of" + own.getFirst());
        });
    }

    @Test
    void anOptionTheDrillDoesNotTakeAnUnknownDrillAndAMissingValueAreRefused() {
        assertThatThrownBy(() -> DrillMain.options("traffic-spike", "--rat", "50"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("traffic-spike takes no option '--rat'")
                .hasMessageContaining("--rate");
        assertThatThrownBy(() -> DrillMain.options("duplicate-event", "--victim", "inventory-service"))
                .hasMessageContaining("takes no option '--victim'");
        assertThatThrownBy(() -> DrillMain.options("power-cut"))
                .hasMessageContaining("No drill named 'power-cut'")
                .hasMessageContaining("broker-failure");
        assertThatThrownBy(() -> DrillMain.options("hot-partition", "--rate"))
                .hasMessageContaining("'--rate' needs a value");
    }

    @Test
    void aValueThatIsNotANumberIsRefusedNamingTheOption() {
        Map<String, String> options = DrillMain.options("traffic-spike", "--rate", "2.5");

        assertThatThrownBy(() -> DrillMain.run("traffic-spike", DrillTarget.localhost(), options))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("'--rate 2.5': a whole number is expected");
    }
}
