package io.orderflow.hostileframes;

import static org.assertj.core.api.Assertions.assertThat;

import io.orderflow.broker.server.Broker;
import io.orderflow.broker.server.BrokerConfig;
import io.orderflow.hostileframes.WireFrame.Kind;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Clock;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

/**
 * The harness itself, against our broker in this JVM: a short run sends every frame it was asked to, of every kind,
 * over every connection, takes every probe, and finds the known records and a round trip, as a healthy broker
 * gives them. Proves the instrument, not the broker: the broker's own tests do that.
 */
class HostileFramesRunTest {
    @TempDir
    Path dataDir;

    @Test
    void aShortRunSendsEveryFrameAndFindsAHealthyBroker() throws Exception {
        Workload workload = new Workload();
        new CommandLine(workload)
                .parseArgs("--frames", "10000", "--connections", "16", "--probe-every", "500", "--records", "200");
        ByteArrayOutputStream printed = new ByteArrayOutputStream();

        HostileFramesResult result;
        try (Broker broker = Broker.start(
                BrokerConfig.from(Map.of(
                        "port", "0",
                        "listen.host", "127.0.0.1",
                        "advertised.host", "127.0.0.1",
                        "log.dirs", dataDir.toString(),
                        "metrics.port", "-1")),
                Clock.systemUTC())) {
            result = new HostileFramesRun(
                            workload,
                            "127.0.0.1:" + broker.port(),
                            "ours",
                            new PrintStream(printed, true, StandardCharsets.UTF_8),
                            () -> "")
                    .execute();
        }
        result.print(new PrintStream(printed, true, StandardCharsets.UTF_8));
        String output = printed.toString(StandardCharsets.UTF_8);

        assertThat(result.passed()).as(output).isTrue();
        assertThat(result.framesSent()).isEqualTo(10_000);
        assertThat(result.framesByKind().values().stream()
                        .mapToLong(Long::longValue)
                        .sum())
                .isEqualTo(10_000);
        assertThat(result.framesByKind())
                .allSatisfy(
                        (kind, count) -> assertThat(count).as("%s frames", kind).isPositive());
        // the harness hangs up after each long size prefix, unless the broker closed first
        assertThat(result.hangUps())
                .isPositive()
                .isLessThanOrEqualTo(result.framesByKind().get(Kind.LONG_SIZE_THEN_HANG_UP)
                        + result.framesByKind().get(Kind.LONG_SIZE_THEN_MORE_FRAMES));
        assertThat(result.closedByBroker()).isPositive();
        assertThat(result.connectionsOpened()).isGreaterThanOrEqualTo(16);
        assertThat(result.probes().ok()).isEqualTo(20); // at frames 500, 1,000 ... 9,500, and after the last
        assertThat(result.probes().failed()).isZero();
        assertThat(result.records().found()).isEqualTo(200);
        assertThat(output)
                .contains("result against 127.0.0.1:")
                .contains("frames sent          10,000 of 10,000")
                .contains("records intact       yes (200 of 200 read back)")
                .contains("round trip           yes");
    }
}
