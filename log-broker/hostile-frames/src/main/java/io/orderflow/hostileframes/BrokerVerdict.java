package io.orderflow.hostileframes;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * What the harness found on one broker, its own side included: the run's result, what its log said
 * ({@code OutOfMemoryError}), whether it was still alive at the end and its peak resident memory. It passes when the
 * run passed, nothing in the log mentioned an OutOfMemoryError and it was alive at the end.
 *
 * @param result null when the broker could not be started or the run failed outright ({@code failure} says why)
 * @param peakRssMiB the kernel's high-water mark of its resident memory ({@code VmHWM}), NaN if it had exited
 */
record BrokerVerdict(
        String broker,
        HostileFramesResult result,
        LogWatch.Sighting outOfMemory,
        boolean aliveAtEnd,
        double peakRssMiB,
        Path log,
        String failure) {

    static BrokerVerdict failed(String broker, Path log, String failure) {
        return new BrokerVerdict(broker, null, new LogWatch.Sighting(0, -1, null), false, Double.NaN, log, failure);
    }

    boolean passed() {
        return problems().isEmpty();
    }

    /** Every check the broker failed, in words; empty when it passed. */
    List<String> problems() {
        List<String> problems = new ArrayList<>();
        if (result == null) {
            problems.add(failure);
            return problems;
        }
        if (result.probes().failed() > 0) {
            problems.add(String.format(
                    Locale.ROOT,
                    "%,d probes failed, the first at frame %,d",
                    result.probes().failed(),
                    result.probes().firstFailureAtFrame()));
        }
        if (outOfMemory.mentions() > 0) {
            problems.add("OutOfMemoryError in its log, first at frame "
                    + String.format(Locale.ROOT, "%,d", outOfMemory.firstAtFrame()));
        }
        if (!aliveAtEnd) {
            problems.add("exited before the end");
        }
        if (!result.records().intact()) {
            problems.add("known records not intact");
        }
        if (!result.roundTrip().ok()) {
            problems.add("round trip failed");
        }
        if (result.stoppedEarly() != null) {
            problems.add("stopped early: " + result.stoppedEarly());
        }
        return problems;
    }
}
