package io.orderflow.ops.powercut;

import io.orderflow.ops.drill.DrillReport;
import io.orderflow.ops.drill.DrillTargetOptions;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/**
 * {@code ops/bin/invariants --journal FILE [options]}: the {@link PlatformInvariants} run from outside the platform,
 * against whatever serves the addresses given ({@code ./run-platform}, docker compose, the services on an Apache Kafka
 * cluster through {@code --bootstrap-servers} and {@code --command-config}). It reads only what a user can read: the
 * services' HTTP APIs, the {@code orders} topic over the Kafka protocol, and the mail catcher's mailbox over POP3.
 * Prints the report; exit code 0 when every invariant holds, 1 when one does not, 2 for a bad command line.
 */
@Command(
        name = "ops/bin/invariants",
        mixinStandardHelpOptions = true,
        sortOptions = false,
        description = "Judges what a run of orders left on the platform: every acknowledged order in its state, its"
                + " events on orders once and in order, the saga's answers, inventory's stock, the mails by"
                + " Message-ID and analytics-service's counts, once every consumer group has caught up.")
public final class InvariantsMain implements Callable<Integer> {

    @Option(
            names = "--journal",
            required = true,
            paramLabel = "FILE",
            description =
                    "what was asked and acknowledged (a drill's journal.json, e.g. .orderflow/power-cut/journal.json)")
    private Path journal;

    @Option(
            names = "--mailbox",
            required = true,
            paramLabel = "pop3://USER:PASSWORD@HOST:PORT",
            description =
                    "the mailbox every mail lands in (docker compose: Mailpit's, pop3://orderflow:orderflow@localhost:1110)")
    private String mailbox;

    @Option(
            names = "--within",
            defaultValue = "PT4M",
            paramLabel = "DURATION",
            description =
                    "how long to wait for the groups to catch up and the mails to arrive (default: ${DEFAULT-VALUE})")
    private Duration within;

    @Mixin
    private DrillTargetOptions platform;

    @Spec
    private CommandSpec spec;

    public static void main(String[] args) {
        System.exit(new CommandLine(new InvariantsMain()).execute(args));
    }

    @Override
    public Integer call() throws Exception {
        Pop3Mailbox mails;
        try {
            mails = Pop3Mailbox.parse(mailbox);
        } catch (IllegalArgumentException e) {
            spec.commandLine().getErr().println(e.getMessage());
            return 2;
        }
        DrillReport report = new DrillReport("invariants");
        report.step("read " + journal + ": what was asked of the platform and what it acknowledged");
        new PlatformInvariants(platform.target()).check(report, OrderJournal.read(journal), mails, within);
        spec.commandLine().getOut().println(report.render());
        return report.passed() ? 0 : 1;
    }
}
