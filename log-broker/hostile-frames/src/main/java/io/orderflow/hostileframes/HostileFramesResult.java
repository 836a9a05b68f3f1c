package io.orderflow.hostileframes;

import io.orderflow.hostileframes.WireFrame.Kind;
import java.io.PrintStream;
import java.time.Duration;
import java.util.Locale;
import java.util.Map;
import java.util.stream.Collectors;

/**
 * What one run against one broker found, and the result block it prints. The broker passes when no probe failed,
 * the run was not stopped early, every known record was read back intact and a new round trip worked; what the
 * broker's own log says (an OutOfMemoryError) is judged by {@link HostileFramesBenchmark}, which has the log.
 *
 * @param framesSent hostile frames written whole to a connection
 * @param framesUnsent frames given up after three connections in a row closed while they were written
 * @param closedByBroker connections the broker closed (or reset) while the harness still had them open
 * @param hangUps connections the harness closed itself, after a lying size prefix
 * @param stalledWrites connections given up because the broker neither read nor closed them for the stall timeout
 * @param stoppedEarly why sending stopped before every frame was sent, or null
 * @param topicsAtEnd topics the broker lists at the end (hostile CreateTopics may add some), -1 if unknown
 * @param sending from the first hostile frame to the last
 */
record HostileFramesResult(
        String bootstrap,
        long framesPlanned,
        long framesSent,
        long framesUnsent,
        Map<Kind, Long> framesByKind,
        long connectionsOpened,
        long closedByBroker,
        long hangUps,
        long stalledWrites,
        long connectFailures,
        long bytesSent,
        long bytesReceived,
        ProbeLatencies.Summary probes,
        KnownRecords.Check records,
        RoundTrip.Outcome roundTrip,
        int topicsAtEnd,
        String stoppedEarly,
        Duration sending,
        Duration total) {

    boolean passed() {
        return stoppedEarly == null && probes.failed() == 0 && records.intact() && roundTrip.ok();
    }

    double framesPerSecond() {
        double seconds = sending.toNanos() / 1e9;
        return seconds == 0 ? 0 : framesSent / seconds;
    }

    String probeLine() {
        return String.format(Locale.ROOT, "%,d ok, %,d failed", probes.ok(), probes.failed())
                + (probes.failed() == 0
                        ? ""
                        : " (first at frame " + String.format(Locale.ROOT, "%,d", probes.firstFailureAtFrame()) + ")");
    }

    String latencyLine() {
        return String.format(
                Locale.ROOT,
                "p50 %.2f ms, p99 %.2f ms, max %.2f ms",
                probes.p50Millis(),
                probes.p99Millis(),
                probes.maxMillis());
    }

    void print(PrintStream out) {
        out.println("result against " + bootstrap + ": " + (passed() ? "PASSED" : "FAILED"));
        line(
                out,
                "frames sent",
                String.format(
                        Locale.ROOT,
                        "%,d of %,d (%,.0f frames/s)%s",
                        framesSent,
                        framesPlanned,
                        framesPerSecond(),
                        framesUnsent == 0 ? "" : String.format(Locale.ROOT, ", %,d given up", framesUnsent)));
        line(
                out,
                "  by kind",
                framesByKind.entrySet().stream()
                        .map(e -> e.getKey().name().toLowerCase(Locale.ROOT) + " "
                                + String.format(Locale.ROOT, "%,d", e.getValue()))
                        .collect(Collectors.joining(", ")));
        line(out, "bytes", String.format(Locale.ROOT, "%,d sent, %,d received", bytesSent, bytesReceived));
        line(
                out,
                "connections",
                String.format(
                        Locale.ROOT,
                        "%,d opened, %,d closed by the broker, %,d hung up by the harness, %,d stalled, %,d connects failed",
                        connectionsOpened,
                        closedByBroker,
                        hangUps,
                        stalledWrites,
                        connectFailures));
        line(out, "probes", probeLine());
        line(out, "probe latency", latencyLine());
        for (String failure : probes.firstFailures()) {
            line(out, "  failed", failure);
        }
        line(out, "records intact", records.describe());
        line(out, "round trip", roundTrip.describe());
        line(out, "topics at the end", topicsAtEnd < 0 ? "unknown" : Integer.toString(topicsAtEnd));
        if (stoppedEarly != null) {
            line(out, "stopped early", stoppedEarly);
        }
        line(
                out,
                "elapsed",
                String.format(
                        Locale.ROOT,
                        "%.1f s sending, %.1f s in all",
                        sending.toMillis() / 1e3,
                        total.toMillis() / 1e3));
    }

    private static void line(PrintStream out, String name, String value) {
        out.printf(Locale.ROOT, "  %-20s %s%n", name, value);
    }
}
