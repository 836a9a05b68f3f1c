package io.orderflow.ops.replay;

import java.io.PrintWriter;
import java.net.URI;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import org.apache.kafka.common.TopicPartition;

/**
 * A replay of one consumer group, start to end ({@code ops/bin/replay}): the service whose group it is is stopped,
 * the group waited for until it is empty, its offsets on the chosen topics moved back and read back, the service
 * started again, and, if asked, the group waited for until it has read everything again, with the service's
 * duplicate and applied counts.
 *
 * <p><b>Order and failure.</b> Nothing is stopped for an unknown group or topic. Once the service is stopped every failure
 * before its start (members that do not leave, a topic that does not exist, a commit the broker refuses, offsets that
 * read back wrong) starts it again and is reported as a failure: the replay never says "done" when the offsets were
 * not reset, which is what {@code kafka-consumer-groups --reset-offsets} does when the group is still active. The
 * steps are {@link GroupRewind}'s; each prints one line (or a table) to {@code out} as it ends. A replay ended between
 * the stop and the start (Ctrl-C, a crash) leaves the service stopped: start it again by hand ({@code ./run-platform
 * start SERVICE}); the offsets are either all reset or all as they were (one OffsetCommit), and the replay may be run
 * again.
 *
 * <p><b>Which topics.</b> {@code orders} by default, not the group's retry topics ({@code <group>_retry_<ms>}): every
 * event in a retry topic is a copy of one in {@code orders}, which the replay reads again anyway, and re-reading the
 * copies would send events that failed for good through their retries and to the dead-letter topic a second time.
 * The retry topics' offsets are left as they are, and the report names them.
 *
 * <p>"Now", for {@code --by-duration}, is read once from the injected clock. Not thread-safe: one replay at a time.
 */
public final class Replay {

    /** The topic a replay resets unless told otherwise. */
    public static final String DEFAULT_TOPIC = "orders";

    private static final Duration CAUGHT_UP_POLL = Duration.ofMillis(500);

    /**
     * What to replay and how.
     *
     * @param group the consumer group whose offsets move
     * @param service the service consuming in it, as {@code control} names it
     * @param topics the topics whose offsets move
     * @param emptyTimeout how long to wait for the group's members to leave
     * @param caughtUpWithin if present, wait that long at most for the group to have read the replayed records
     * @param metrics the service's {@code /q/metrics}, for its counters once caught up, if known
     */
    public record Request(
            String group,
            String service,
            List<String> topics,
            ReplayStart start,
            Duration emptyTimeout,
            Optional<Duration> caughtUpWithin,
            Optional<URI> metrics) {

        public Request {
            topics = List.copyOf(topics);
        }
    }

    private final GroupRewind rewind;
    private final ServiceControl control;
    private final Clock clock;
    private final PrintWriter out;

    public Replay(GroupRewind rewind, ServiceControl control, Clock clock, PrintWriter out) {
        this.rewind = rewind;
        this.control = control;
        this.clock = clock;
        this.out = out;
    }

    /**
     * Runs the replay; returns its plan once the offsets are reset and read back and the service is started (and,
     * if asked, has caught up).
     *
     * @throws ReplayException naming what failed; when thrown before the service was started again, no offset moved
     *     unless the message says otherwise, and the service has been started again
     */
    public ReplayPlan run(Request request) throws ReplayException, InterruptedException {
        out.printf("replay of consumer group %s on %s%n", request.group(), String.join(", ", request.topics()));
        rewind.describe(request.group());
        rewind.partitions(request.topics());
        out.println(control.stop(request.service()));
        ReplayPlan plan;
        try {
            long waitStarted = System.nanoTime();
            rewind.awaitEmpty(request.group(), request.emptyTimeout());
            out.printf(
                    Locale.ROOT,
                    "consumer group %s is empty (after %.1f s)%n",
                    request.group(),
                    (System.nanoTime() - waitStarted) / 1e9);
            Instant now = clock.instant();
            plan = rewind.plan(request.group(), request.topics(), request.start(), now);
            rewind.reset(plan);
        } catch (ReplayException | RuntimeException e) {
            restartAfter(request.service(), e);
            throw e;
        }
        print(plan);
        out.println(control.start(request.service()));
        if (request.caughtUpWithin().isPresent()) {
            awaitCaughtUp(plan, request.caughtUpWithin().get());
            if (request.metrics().isPresent()) {
                ConsumerCounters counters =
                        ConsumerCounters.read(request.metrics().get(), request.group());
                out.printf(
                        "%s since its start (%s): %s%n",
                        request.service(), request.metrics().get(), counters.describe());
            } else {
                out.println("no metrics URL for " + request.service() + " (--metrics-url): duplicates not counted");
            }
        }
        return plan;
    }

    private void restartAfter(String service, Exception failure) throws InterruptedException {
        try {
            out.println("the replay failed; starting " + service + " again: " + control.start(service));
        } catch (ReplayException e) {
            failure.addSuppressed(e);
        }
    }

    private void awaitCaughtUp(ReplayPlan plan, Duration within) throws ReplayException, InterruptedException {
        long started = System.nanoTime();
        while (true) {
            Map<TopicPartition, Long> behind = rewind.behind(plan);
            Duration waited = Duration.ofNanos(System.nanoTime() - started);
            if (behind.isEmpty()) {
                out.printf(
                        Locale.ROOT,
                        "consumer group %s has caught up (after %.1f s): its committed offsets reached the log end"
                                + " offsets the replay saw, %d records read since the reset%n",
                        plan.group(),
                        waited.toMillis() / 1000.0,
                        plan.toRead());
                return;
            }
            if (waited.compareTo(within) >= 0) {
                throw new ReplayException("the offsets were reset, but consumer group " + plan.group()
                        + " has not caught up within " + within + ": still behind by "
                        + byName(behind) + " records. Is the service running?");
            }
            Thread.sleep(CAUGHT_UP_POLL.toMillis());
        }
    }

    private static Map<String, Long> byName(Map<TopicPartition, Long> behind) {
        Map<String, Long> named = new TreeMap<>();
        behind.forEach((partition, records) -> named.put(partition.toString(), records));
        return named;
    }

    private void print(ReplayPlan plan) {
        out.printf(
                "reset consumer group %s to %s; the committed offsets read back are the ones set:%n",
                plan.group(), plan.start());
        out.printf("  %-32s %10s %10s %10s %10s%n", "PARTITION", "OLD", "NEW", "RE-READ", "TO-READ");
        for (PartitionRewind partition : plan.partitions()) {
            out.printf(
                    "  %-32s %10s %10d %10d %10d%s%n",
                    partition.partition(),
                    partition.committed() == PartitionRewind.NONE ? "-" : Long.toString(partition.committed()),
                    partition.target(),
                    partition.reread(),
                    partition.toRead(),
                    partition.keptCommitted()
                            ? "  (kept: the start, " + partition.start() + ", is after it)"
                            : partition.committed() == PartitionRewind.NONE ? "  (no committed offset before)" : "");
        }
        out.printf("  %-32s %10s %10s %10d %10d%n", "total", "", "", plan.reread(), plan.toRead());
        out.println(
                "  (RE-READ: records the group had read and reads again; TO-READ: records up to the log end offset)");
        if (!plan.untouchedTopics().isEmpty()) {
            out.println("not reset: " + String.join(", ", plan.untouchedTopics())
                    + " (the group's other topics keep their offsets; --topic chooses the topics)");
        }
    }
}
