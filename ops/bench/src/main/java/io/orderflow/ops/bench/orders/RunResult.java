package io.orderflow.ops.bench.orders;

import java.util.Map;

/**
 * The figures of one start of the stack on one broker, for the measured window. Latencies in milliseconds.
 *
 * @param broker the broker's name as printed
 * @param offeredPerSecond the generator's rate
 * @param acceptedPerSecond 201 answers to requests due in the window, per second of the window
 * @param unsuccessful requests due in the window that were not accepted: other answers, errors, not sent, unanswered
 * @param httpP50 from due to answered (accepted requests)
 * @param httpP99 from due to answered
 * @param readableP50 commit-to-readable, upper bound: from the envelope's {@code occurredAt} to the reader's poll
 * @param readableP99 upper bound, 99th percentile
 * @param readableMax upper bound, maximum
 * @param readableLowerP50 commit-to-readable, lower bound: from the 201 arriving at the client to the reader's poll
 *     (0 when the event was readable first)
 * @param readableLowerP99 lower bound, 99th percentile
 * @param missing accepted orders of the window whose event had not arrived when the drain period ended
 * @param backlogMax most outbox rows waiting for the relay at one reading (every second) in the window
 * @param backlogMean mean of those readings
 * @param oldestPendingMax oldest waiting row at any reading in the window
 * @param backlogAfterDrain rows waiting after the drain
 * @param drainMillis from the last request's due time until every accepted order's event had arrived
 * @param cores CPU cores used in the window, by process, then "everything else" and the machine's totals
 */
record RunResult(
        String broker,
        double offeredPerSecond,
        double acceptedPerSecond,
        double unsuccessful,
        double httpP50,
        double httpP99,
        double readableP50,
        double readableP99,
        double readableMax,
        double readableLowerP50,
        double readableLowerP99,
        double missing,
        double backlogMax,
        double backlogMean,
        double oldestPendingMax,
        double backlogAfterDrain,
        double drainMillis,
        Map<String, Double> cores) {

    double cores(String process) {
        return cores.getOrDefault(process, Double.NaN);
    }
}
