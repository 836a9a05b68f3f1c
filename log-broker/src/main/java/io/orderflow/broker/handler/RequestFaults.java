package io.orderflow.broker.handler;

import java.time.Clock;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.LongAdder;
import org.apache.kafka.common.protocol.ApiKeys;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The broker's own bugs met while answering requests: a handler that threw something no error code was made for,
 * or an answer the codec could not encode at the request's version. Each is counted per API, version and stage (for
 * {@code /metrics}) and logged with its stack trace the first time, then at most once per {@link #LOG_INTERVAL_MS}
 * per API, version and stage with the number of failures since the last line. A client that reconnects in a
 * tight loop and meets the same bug each time therefore costs one log line a minute, not a stack trace per
 * connection.
 *
 * <p>Thread-safe: connections of any thread report here; counting is a lock-free add, and the decision to log is
 * one compare-and-set per key.
 */
public final class RequestFaults {
    private static final Logger log = LoggerFactory.getLogger(RequestFaults.class);

    /** At most one log line per key in this interval. */
    static final long LOG_INTERVAL_MS = 60_000;

    /** Where in answering the request the bug struck. */
    public enum Stage {
        /** The handler failed with an exception that is not one of the protocol's. */
        HANDLE("handle"),
        /** The answer could not be written at the request's version. */
        ENCODE("encode");

        private final String label;

        Stage(String label) {
            this.label = label;
        }

        public String label() {
            return label;
        }
    }

    /** A metric label set: which API, at which version, failed at which stage. */
    public record Key(ApiKeys api, short version, Stage stage) implements Comparable<Key> {
        @Override
        public int compareTo(Key o) {
            int byApi = Short.compare(api.id, o.api.id);
            if (byApi != 0) {
                return byApi;
            }
            int byVersion = Short.compare(version, o.version);
            return byVersion != 0 ? byVersion : stage.compareTo(o.stage);
        }
    }

    private static final class Tally {
        final LongAdder total = new LongAdder();
        final AtomicLong lastLoggedAtMs = new AtomicLong(Long.MIN_VALUE);
        final AtomicLong sinceLastLog = new AtomicLong();
    }

    private final Clock clock;
    private final Map<Key, Tally> tallies = new ConcurrentHashMap<>();

    public RequestFaults(Clock clock) {
        this.clock = clock;
    }

    /** Counts one failure and logs it unless a line for the same key was written within the interval. */
    public void record(Stage stage, ApiKeys api, short version, ClientInfo client, Throwable cause) {
        Tally tally = tallies.computeIfAbsent(new Key(api, version, stage), k -> new Tally());
        tally.total.increment();
        tally.sinceLastLog.incrementAndGet();
        long now = clock.millis();
        long last = tally.lastLoggedAtMs.get();
        boolean first = last == Long.MIN_VALUE;
        if (!first && now - last < LOG_INTERVAL_MS) {
            return;
        }
        if (!tally.lastLoggedAtMs.compareAndSet(last, now)) {
            return; // another thread logs this interval
        }
        long failures = tally.sinceLastLog.getAndSet(0);
        var line = log.atError()
                .addKeyValue("api", api.name)
                .addKeyValue("version", version)
                .addKeyValue("stage", stage.label())
                .addKeyValue("failures", failures)
                .addKeyValue("total", tally.total.sum())
                .addKeyValue("connection", client.connectionId())
                .addKeyValue("clientId", client.clientId())
                .addKeyValue("remote", client.host());
        if (first) {
            line.setCause(cause).log("A request failed inside the broker; answered with an error code");
        } else {
            line.addKeyValue("error", cause.toString())
                    .log("Requests keep failing inside the broker; answered with an error code (stack trace logged at"
                            + " the first)");
        }
    }

    /** Failures so far, by key in API, version and stage order. */
    public Map<Key, Long> counts() {
        Map<Key, Long> counts = new TreeMap<>();
        tallies.forEach((key, tally) -> counts.put(key, tally.total.sum()));
        return counts;
    }
}
