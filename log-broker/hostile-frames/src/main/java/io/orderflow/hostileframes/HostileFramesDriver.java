package io.orderflow.hostileframes;

import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/**
 * The harness against a broker that is already running, at {@code --bootstrap}: one {@link HostileFramesRun}, its
 * progress lines and its result block. Exit code 0 when the broker passed, 1 when it did not, 2 for a bad command
 * line. {@link HostileFramesBenchmark} starts both brokers itself and runs the same thing against each.
 */
@Command(
        name = "hostile-frames-driver",
        mixinStandardHelpOptions = true,
        sortOptions = false,
        description = "Sends mutated Kafka frames to a running broker over many connections, probing with a valid"
                + " ApiVersions every so many frames; then reads back the records it produced first and runs a new"
                + " produce/consume round trip.")
public final class HostileFramesDriver implements Callable<Integer> {
    @Option(names = "--bootstrap", required = true, description = "the broker, host:port")
    String bootstrap;

    @Mixin
    Workload workload = new Workload();

    @Spec
    CommandSpec spec;

    public static void main(String[] args) {
        quietClients();
        System.exit(commandLine(new HostileFramesDriver()).execute(args));
    }

    @Override
    public Integer call() throws Exception {
        workload.check(spec);
        System.out.println("hostile-frames-driver " + workload.asOptions() + " --bootstrap " + bootstrap);
        HostileFramesResult result =
                new HostileFramesRun(workload, bootstrap, bootstrap, System.out, () -> "").execute();
        result.print(System.out);
        return result.passed() ? 0 : 1;
    }

    /**
     * picocli as every command of the harness uses it: a later occurrence of an option wins (a script passes its own
     * first), help 120 columns wide.
     */
    static CommandLine commandLine(Object command) {
        return new CommandLine(command).setOverwrittenOptionsAllowed(true).setUsageHelpWidth(120);
    }

    /** kafka-clients logs through slf4j-simple: warnings only, so the progress lines stay readable. */
    static void quietClients() {
        System.setProperty("org.slf4j.simpleLogger.defaultLogLevel", "warn");
        System.setProperty("org.slf4j.simpleLogger.showDateTime", "true");
    }
}
