package io.orderflow.broker.security;

import java.time.Clock;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * SASL logins: each success counted by mechanism ({@code orderflow_broker_authentications_total}); each failure
 * counted by mechanism (for {@code orderflow_broker_authentication_failures_total}), logged
 * with the user and the reason but never a secret, and answered late. Kafka delays the answer to a failed login by
 * {@code connection.failed.authentication.delay.ms}; here the delay doubles with each failure from the same host
 * within a minute (from that setting up to 32 times it), so a client guessing passwords slows down while a client
 * that logs in correctly, from any host, is never delayed. The delay holds only the failing connection's own
 * thread.
 *
 * <p>Thread-safe.
 */
public final class Logins {
    private static final Logger log = LoggerFactory.getLogger(Logins.class);
    static final long WINDOW_MS = 60_000;
    private static final int MAX_DOUBLINGS = 5;

    private final Clock clock;
    private final long baseDelayMs;
    private final Map<String, AtomicLong> byMechanism = new ConcurrentHashMap<>();
    private final Map<String, AtomicLong> succeeded = new ConcurrentHashMap<>();
    private final Map<String, Streak> byHost = new ConcurrentHashMap<>();

    private record Streak(int failures, long lastMs) {}

    public Logins(Clock clock, long baseDelayMs) {
        this.clock = clock;
        this.baseDelayMs = baseDelayMs;
    }

    /**
     * Records a failed login and returns how long to wait before answering it.
     *
     * @param host the client's address without its port
     */
    public long failed(String mechanism, String host, String connectionId, String reason) {
        byMechanism.computeIfAbsent(mechanism, m -> new AtomicLong()).incrementAndGet();
        long now = clock.millis();
        Streak streak = byHost.compute(
                host,
                (h, s) -> s == null || now - s.lastMs() > WINDOW_MS
                        ? new Streak(1, now)
                        : new Streak(s.failures() + 1, now));
        long delay = baseDelayMs << Math.min(streak.failures() - 1, MAX_DOUBLINGS);
        log.atWarn()
                .addKeyValue("connection", connectionId)
                .addKeyValue("host", host)
                .addKeyValue("mechanism", mechanism)
                .addKeyValue("reason", reason)
                .addKeyValue("failuresFromHost", streak.failures())
                .addKeyValue("delayMs", delay)
                .log("SASL login failed");
        if (byHost.size() > 10_000) {
            byHost.values().removeIf(s -> now - s.lastMs() > WINDOW_MS);
        }
        return delay;
    }

    /** Records a login that succeeded (a first one or a re-authentication). */
    public void succeeded(String mechanism) {
        succeeded.computeIfAbsent(mechanism, m -> new AtomicLong()).incrementAndGet();
    }

    /** Failed logins so far, by mechanism name. */
    public Map<String, Long> failures() {
        return snapshot(byMechanism);
    }

    /** Successful logins so far, by mechanism name. */
    public Map<String, Long> successes() {
        return snapshot(succeeded);
    }

    private static Map<String, Long> snapshot(Map<String, AtomicLong> counters) {
        Map<String, Long> counts = new java.util.TreeMap<>();
        counters.forEach((m, n) -> counts.put(m, n.get()));
        return counts;
    }
}
