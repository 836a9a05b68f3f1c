package io.orderflow.ops.drill;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.util.List;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;
import picocli.CommandLine.Model.OptionSpec;

/**
 * {@code ops/bin/drill}'s command line, through picocli and without running a drill: every drill takes the options its
 * help names, with their defaults, and the platform's addresses; an option it does not take, an unknown drill, a
 * missing value, a value that is not a whole number above 0 or one the drill refuses is refused with exit code 2 and a
 * message naming it, rather than ignored.
 */
class DrillMainTest {

    private static final List<String> DRILLS = List.of(
            DuplicateEventDrill.NAME,
            BrokerFailureDrill.NAME,
            CrashConsumerDrill.NAME,
            HotPartitionDrill.NAME,
            SagaDrill.NAME,
            SchemaChangeDrill.NAME,
            SlowConsumerDrill.NAME,
            TrafficSpikeDrill.NAME);
    private static final List<String> PLATFORM = List.of(
            "--order-service",
            "--inventory-service",
            "--notification-service",
            "--analytics-service",
            "--lag-monitor",
            "--bootstrap-servers");

    private final StringWriter out = new StringWriter();
    private final StringWriter err = new StringWriter();

    @Test
    void theHelpListsEveryDrill() {
        CommandLine commandLine = commandLine();

        assertThat(commandLine.execute("--help")).isZero();

        assertThat(commandLine.getSubcommands().keySet()).containsExactlyInAnyOrderElementsOf(DRILLS);
        for (String drill : DRILLS) {
            assertThat(out.toString()).containsPattern("(?m)^  " + drill + " ");
        }
    }

    @Test
    void eachDrillsHelpNamesEveryOptionWithItsDefaultAndThePlatformsAddresses() {
        for (String drill : DRILLS) {
            out.getBuffer().setLength(0);
            CommandLine commandLine = commandLine();

            assertThat(commandLine.execute(drill, "--help")).as(drill).isZero();

            CommandLine command = commandLine.getSubcommands().get(drill);
            assertThat(command.getCommandSpec().options().stream().map(OptionSpec::longestName))
                    .as(drill)
                    .containsAll(PLATFORM);
            String flat = out.toString().replaceAll("\\s", "");
            for (OptionSpec option : command.getCommandSpec().options()) {
                if (option.usageHelp()) {
                    continue;
                }
                assertThat(flat).as(drill).contains(option.longestName());
                if (option.defaultValue() != null) {
                    assertThat(flat)
                            .as(drill + " " + option.longestName())
                            .contains(("(default:" + option.defaultValue() + ")"));
                } else {
                    assertThat(String.join(" ", option.description()))
                            .as(drill + " " + option.longestName())
                            .contains("(default: ");
                }
            }
        }
        assertThat(out.toString().replaceAll("\\s", ""))
                .contains("--lag-monitor=URL", "(default:http://localhost:8086)", "(default:localhost:9092)");
    }

    @Test
    void anOptionTheDrillDoesNotTakeAnUnknownDrillAndAMissingValueAreRefused() {
        assertThat(execute("traffic-spike", "--rat", "50")).isEqualTo(2);
        assertThat(err.toString()).contains("Unknown options: '--rat', '50'", "Possible solutions: --rate");

        assertThat(execute("duplicate-event", "--victim", "inventory-service")).isEqualTo(2);
        assertThat(err.toString()).contains("Unknown options: '--victim', 'inventory-service'");

        assertThat(execute("power-cut")).isEqualTo(2);
        assertThat(err.toString()).contains("No drill named 'power-cut'", "broker-failure");

        assertThat(execute()).isEqualTo(2);
        assertThat(err.toString()).contains("Name a drill", "traffic-spike");

        assertThat(execute("hot-partition", "--rate")).isEqualTo(2);
        assertThat(err.toString()).contains("Missing required parameter for option '--rate'");
    }

    @Test
    void aValueThatIsNotANumberOrNotAnAddressIsRefusedNamingTheOption() {
        assertThat(execute("traffic-spike", "--rate", "2.5")).isEqualTo(2);
        assertThat(err.toString()).contains("Invalid value for option '--rate': '2.5' is not a whole number above 0");

        assertThat(execute("slow-consumer", "--calm", "0")).isEqualTo(2);
        assertThat(err.toString()).contains("Invalid value for option '--calm': '0' is not a whole number above 0");

        assertThat(execute("schema-change", "--order-service", "localhost:8080"))
                .isEqualTo(2);
        assertThat(err.toString())
                .contains("Invalid value for option '--order-service': 'localhost:8080' is not an http or https URL");
    }

    @Test
    void whatTheDrillRefusesEndsTheCommandLineBeforeAnythingIsDone() {
        assertThat(execute("traffic-spike", "--factor", "1")).isEqualTo(2);
        assertThat(err.toString()).contains("the factor at least 2", "Usage: ops/bin/drill traffic-spike");

        assertThat(execute("crash-consumer", "--control", "http://localhost:1", "--victim", "outbox-relay"))
                .isEqualTo(2);
        assertThat(err.toString())
                .contains("the victim must be one of [analytics-service, inventory-service, notification-service,"
                        + " order-service], was outbox-relay");

        assertThat(execute("saga", "--control", "http://localhost:1", "--out-of-stock", "1.5"))
                .isEqualTo(2);
        assertThat(err.toString()).contains("the out-of-stock share in [0, 1]", "Usage: ops/bin/drill saga");
    }

    private int execute(String... args) {
        err.getBuffer().setLength(0);
        return commandLine().execute(args);
    }

    private CommandLine commandLine() {
        CommandLine commandLine = DrillMain.commandLine();
        commandLine.setOut(new PrintWriter(out, true));
        commandLine.setErr(new PrintWriter(err, true));
        return commandLine;
    }
}
