package io.orderflow.hostileframes;

import java.util.Locale;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;

/**
 * What one run sends and checks, the same whichever broker it runs against: picocli options with their defaults
 * (the help text is generated from them), mixed into both commands, {@link HostileFramesDriver} and
 * {@link HostileFramesBenchmark}.
 */
public final class Workload {
    @Option(
            names = "--frames",
            defaultValue = "10000000",
            description = "hostile frames to send over all connections (default: ${DEFAULT-VALUE})")
    long frames;

    @Option(
            names = "--connections",
            defaultValue = "16",
            description = "connections sending at once, each reopened when the broker closes it"
                    + " (default: ${DEFAULT-VALUE})")
    int connections;

    @Option(
            names = "--seed",
            defaultValue = "1",
            description = "seed of every frame and record drawn; connection i draws from its own seed derived from it"
                    + " (default: ${DEFAULT-VALUE})")
    long seed;

    @Option(
            names = "--probe-every",
            defaultValue = "5000",
            description = "frames between two probes: a fresh connection sends a valid ApiVersions, which must be"
                    + " answered within --probe-timeout-ms (default: ${DEFAULT-VALUE})")
    long probeEvery;

    @Option(
            names = "--probe-timeout-ms",
            defaultValue = "1000",
            description = "time a probe has from connecting to a valid answer (default: ${DEFAULT-VALUE})")
    int probeTimeoutMillis;

    @Option(
            names = "--reaction-wait-ms",
            defaultValue = "10",
            description = "after each frame, the longest a connection waits for the broker to answer or close before"
                    + " it sends the next; 0 sends without waiting, and the frames after one the broker closes on are"
                    + " lost in the closed connection (default: ${DEFAULT-VALUE})")
    int reactionWaitMillis;

    @Option(
            names = "--records",
            defaultValue = "2500",
            description = "records produced before the frames, all of which must be read back intact after them"
                    + " (default: ${DEFAULT-VALUE})")
    int records;

    @Option(
            names = "--max-claimed-bytes",
            defaultValue = "104857600",
            description = "the most a lying size prefix claims; 100 MiB is both brokers' socket.request.max.bytes"
                    + " (default: ${DEFAULT-VALUE})")
    int maxClaimedBytes;

    @Option(
            names = "--give-up-after",
            defaultValue = "10",
            description = "consecutive failed probes after which sending stops: the broker no longer answers"
                    + " (default: ${DEFAULT-VALUE})")
    int giveUpAfter;

    @Option(
            names = "--topic-prefix",
            defaultValue = "hostile-frames",
            description = "prefix of the topics the run creates; they must not exist yet (default: ${DEFAULT-VALUE})")
    String topicPrefix;

    @Option(
            names = "--hostile-address",
            defaultValue = "127.0.0.2",
            description = "local address the hostile connections are made from, so that the probes, the known records"
                    + " and the round trip, made from the machine's usual address, are a client of their own to"
                    + " limits per address such as max.connections.per.ip; any address of the loopback network"
                    + " (127.0.0.0/8) will do for a broker on this machine (default: ${DEFAULT-VALUE})")
    String hostileAddress;

    /** The options as typed, to run the same workload again. */
    String asOptions() {
        return String.format(
                Locale.ROOT,
                "--frames %d --connections %d --seed %d --probe-every %d --probe-timeout-ms %d --reaction-wait-ms %d"
                        + " --records %d --max-claimed-bytes %d --give-up-after %d --hostile-address %s",
                frames,
                connections,
                seed,
                probeEvery,
                probeTimeoutMillis,
                reactionWaitMillis,
                records,
                maxClaimedBytes,
                giveUpAfter,
                hostileAddress);
    }

    /** Rejects values the run cannot work with as a bad command line (exit code 2), naming the option. */
    void check(CommandSpec spec) {
        try {
            check();
        } catch (IllegalArgumentException e) {
            throw new ParameterException(spec.commandLine(), e.getMessage());
        }
    }

    /** Rejects values the run cannot work with, naming the option. */
    void check() {
        require(frames >= 0, "--frames must be 0 or more, got " + frames);
        require(connections >= 1, "--connections must be at least 1, got " + connections);
        require(probeEvery >= 1, "--probe-every must be at least 1, got " + probeEvery);
        require(probeTimeoutMillis >= 1, "--probe-timeout-ms must be at least 1, got " + probeTimeoutMillis);
        require(reactionWaitMillis >= 0, "--reaction-wait-ms must be 0 or more, got " + reactionWaitMillis);
        require(records >= 0, "--records must be 0 or more, got " + records);
        require(maxClaimedBytes >= 1024, "--max-claimed-bytes must be at least 1024, got " + maxClaimedBytes);
        require(giveUpAfter >= 1, "--give-up-after must be at least 1, got " + giveUpAfter);
    }

    private static void require(boolean condition, String message) {
        if (!condition) {
            throw new IllegalArgumentException(message);
        }
    }
}
