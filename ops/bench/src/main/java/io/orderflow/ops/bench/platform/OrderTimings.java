package io.orderflow.ops.bench.platform;

import io.orderflow.ops.load.LatencySamples;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.function.Function;

/**
 * The window's orders on their way round the platform: when each reached each point one can see from outside, and
 * what that makes: accepted -> processed by each consumer service and by all three, accepted -> confirmed, accepted ->
 * mail accepted by the SMTP server, the stages between them ({@link #STAGES}), and for each part that must keep up
 * ({@link #PARTS}) how its delay changed over the window ({@link DelayTrend}).
 *
 * <p>The moments of an order ({@link Moments}), all on this machine's one clock (the driver's wall clock and
 * PostgreSQL's):
 *
 * <ul>
 *   <li><b>accepted</b>: the 201's arrival at the load generator;
 *   <li><b>published</b>: order-service's relay marked its {@code OrderCreated} published (the row's {@code
 *       published_at}, set once the broker acknowledged the record);
 *   <li><b>readable</b>: a plain consumer in the driver had it from {@code poll()} (every partition assigned, no
 *       group, default fetch settings);
 *   <li><b>processed by</b> each consumer service: the {@code processed_at} of that {@code OrderCreated} in the
 *       service's processed events, written in the transaction that applied it;
 *   <li><b>answer written, answer published</b>: inventory's answer ({@code InventoryReserved}, or {@code
 *       InventoryRejected}) in inventory-service's outbox, written in the transaction that reserved, then published by
 *       inventory's relay to {@code inventory};
 *   <li><b>confirmed</b>: the {@code OrderConfirmed} (or {@code OrderRejected}) row order-service wrote to its outbox
 *       in the transaction that moved the order out of {@code CREATED}: that transaction's last statement but its
 *       commit, so a few milliseconds before the order reads {@code CONFIRMED};
 *   <li><b>mailed</b>: the SMTP server accepted the mail of its {@code OrderCreated} (its {@code Message-ID}).
 * </ul>
 *
 * <p>An order missing a moment is left out of every figure that needs it, and counted as not processed, not confirmed
 * or not mailed by the caller (accepted orders minus the figure's count). Stateless.
 */
final class OrderTimings {
    static final List<String> CONSUMERS = PlatformBenchmark.CONSUMERS;
    /** Keys of {@link Processed#latencies} beside the consumers'. */
    static final String ALL = "all";

    static final String CONFIRMED = "confirmed";
    static final String MAILED = "mailed";

    /**
     * What must keep up for the platform to sustain a rate, each judged on the delay from an order's acceptance to its
     * own step: a part that falls behind makes that delay grow, and so does every part after it.
     *
     * @param name the process or flow, as reports name it
     * @param delay the delay it is judged on
     */
    record Part(String name, String delay) {}

    static final String INVENTORY_RELAY = "inventory-outbox-relay";
    static final String SAGA = "order-service saga";
    static final String MAILS = "mails";

    static final List<Part> PARTS = List.of(
            new Part("inventory-service", "accepted -> processed by inventory-service"),
            new Part("notification-service", "accepted -> processed by notification-service"),
            new Part("analytics-service", "accepted -> processed by analytics-service"),
            new Part(INVENTORY_RELAY, "accepted -> inventory's answer published"),
            new Part(SAGA, "accepted -> confirmed"),
            new Part(MAILS, "accepted -> mail accepted by SMTP"));

    private static final String PUBLISHED = "accepted -> published";
    private static final String READABLE = "accepted -> readable";
    private static final String ANSWER_PUBLISHED = "answer written -> published by inventory's relay";
    private static final String ANSWER_APPLIED = "answer published -> confirmed";
    private static final String MAIL_SENT = "processed by notification-service -> mail accepted";

    /** Where the time went, between the moments above. */
    static final List<String> STAGES = List.of(
            PUBLISHED,
            READABLE,
            "readable -> processed by inventory-service",
            "readable -> processed by notification-service",
            "readable -> processed by analytics-service",
            ANSWER_PUBLISHED,
            ANSWER_APPLIED,
            MAIL_SENT);

    private OrderTimings() {}

    /**
     * Each order's moments, in microseconds of wall time; null where an order has not reached one.
     *
     * @param acceptedAtMicros the window's accepted orders, by order id
     * @param createdEvent order id to the event id of its {@code OrderCreated}
     * @param publishedAtMicros order id to when its {@code OrderCreated} was published
     * @param readableAtMicros order id to when its first event was readable
     * @param processedAtMicros per consumer service, event id to when it processed that event
     * @param answerWrittenAtMicros order id to when inventory wrote its answer
     * @param answerPublishedAtMicros order id to when inventory's relay published it
     * @param confirmedAtMicros order id to when order-service confirmed (or rejected) it
     * @param mailedAtMicros event id to when the SMTP server accepted its mail
     */
    record Moments(
            Map<String, Long> acceptedAtMicros,
            Map<String, UUID> createdEvent,
            Map<String, Long> publishedAtMicros,
            Function<String, Long> readableAtMicros,
            Map<String, Map<UUID, Long>> processedAtMicros,
            Map<String, Long> answerWrittenAtMicros,
            Map<String, Long> answerPublishedAtMicros,
            Map<String, Long> confirmedAtMicros,
            Function<UUID, Long> mailedAtMicros) {}

    /**
     * The window's figures.
     *
     * @param latencies per consumer service, for all three ({@link #ALL}), to confirmation ({@link #CONFIRMED}) and
     *     to the mail ({@link #MAILED}): the delay from acceptance
     * @param trends per part ({@link #PARTS}, by name): how its delay changed over the window
     * @param stages per stage ({@link #STAGES})
     */
    record Processed(
            Map<String, LatencySamples> latencies,
            Map<String, DelayTrend> trends,
            Map<String, LatencySamples> stages) {}

    static Processed of(Moments moments) {
        Map<String, LatencySamples> latencies = new LinkedHashMap<>();
        CONSUMERS.forEach(c -> latencies.put(c, new LatencySamples()));
        List.of(ALL, CONFIRMED, MAILED).forEach(key -> latencies.put(key, new LatencySamples()));
        Map<String, LatencySamples> stages = new LinkedHashMap<>();
        STAGES.forEach(stage -> stages.put(stage, new LatencySamples()));
        Map<String, List<long[]>> acceptedAndDelay = new LinkedHashMap<>();
        PARTS.forEach(part -> acceptedAndDelay.put(part.name(), new ArrayList<>()));

        moments.acceptedAtMicros().forEach((orderId, accepted) -> {
            UUID event = moments.createdEvent().get(orderId);
            Long published = moments.publishedAtMicros().get(orderId);
            if (published != null) {
                stages.get(PUBLISHED).add(delay(accepted, published));
            }
            Long readable = moments.readableAtMicros().apply(orderId);
            if (readable != null) {
                stages.get(READABLE).add(delay(accepted, readable));
            }
            long last = Long.MIN_VALUE;
            int processedBy = 0;
            for (String consumer : CONSUMERS) {
                Long at = event == null
                        ? null
                        : moments.processedAtMicros().get(consumer).get(event);
                if (at == null) {
                    continue; // not processed by this service: counted as missing for all three
                }
                processedBy++;
                if (readable != null) {
                    stages.get("readable -> processed by " + consumer).add(delay(readable, at));
                }
                latencies.get(consumer).add(delay(accepted, at));
                acceptedAndDelay.get(consumer).add(new long[] {accepted, delay(accepted, at)});
                last = Math.max(last, at);
            }
            if (processedBy == CONSUMERS.size()) {
                latencies.get(ALL).add(delay(accepted, last));
            }
            Long answerWritten = moments.answerWrittenAtMicros().get(orderId);
            Long answerPublished = moments.answerPublishedAtMicros().get(orderId);
            if (answerPublished != null) {
                acceptedAndDelay.get(INVENTORY_RELAY).add(new long[] {accepted, delay(accepted, answerPublished)});
                if (answerWritten != null) {
                    stages.get(ANSWER_PUBLISHED).add(delay(answerWritten, answerPublished));
                }
            }
            Long confirmed = moments.confirmedAtMicros().get(orderId);
            if (confirmed != null) {
                latencies.get(CONFIRMED).add(delay(accepted, confirmed));
                acceptedAndDelay.get(SAGA).add(new long[] {accepted, delay(accepted, confirmed)});
                if (answerPublished != null) {
                    stages.get(ANSWER_APPLIED).add(delay(answerPublished, confirmed));
                }
            }
            Long mailed = event == null ? null : moments.mailedAtMicros().apply(event);
            if (mailed != null) {
                latencies.get(MAILED).add(delay(accepted, mailed));
                acceptedAndDelay.get(MAILS).add(new long[] {accepted, delay(accepted, mailed)});
                Long notified =
                        moments.processedAtMicros().get("notification-service").get(event);
                if (notified != null) {
                    stages.get(MAIL_SENT).add(delay(notified, mailed));
                }
            }
        });
        Map<String, DelayTrend> trends = new LinkedHashMap<>();
        acceptedAndDelay.forEach((part, pairs) -> trends.put(
                part,
                DelayTrend.of(
                        pairs.stream().mapToLong(p -> p[0]).toArray(),
                        pairs.stream().mapToLong(p -> p[1]).toArray())));
        return new Processed(latencies, trends, stages);
    }

    /**
     * From one moment to a later one, never negative: two clocks' readings of one moment (the driver's and
     * PostgreSQL's, on one machine) may differ by their resolution.
     */
    private static long delay(long from, long to) {
        return Math.max(0, to - from);
    }
}
