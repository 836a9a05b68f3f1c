package io.orderflow.broker.quota;

import java.time.Clock;
import java.util.EnumMap;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.LongAdder;

/**
 * Enforces the client quotas of a {@link ClientQuotaStore} as Apache Kafka does (KIP-13, KIP-55, KIP-124, KIP-219):
 * each request's bytes (Produce), answer's bytes (Fetch) or handling time (every API but the login ones) is recorded
 * against the client's quota, and when the client's {@link QuotaRate} is over it, the answer carries the time the
 * client must wait in {@code throttle_time_ms} and the broker stops reading its connection for that long. The
 * answer itself is not delayed; a throttled Fetch is answered empty.
 *
 * <p><b>Which quota applies.</b> For each quota type on its own, the first of these entities that has one, in
 * Kafka's order: user and client id; user and default client id; user; default user and client id; default user and
 * default client id; default user; client id; default client id. The user is the connection's principal name
 * ({@code ANONYMOUS} without authentication). Clients share a rate when they share the entity's named parts: every
 * connection of client id {@code c} shares the quota of entity {@code client-id=c}, and with a default client id
 * quota each client id has a rate of its own against the same bound.
 *
 * <p><b>Throttle times.</b> {@code (rate - bound) / bound} of the measured span ({@link QuotaRate}); a request-time
 * throttle is at most one window, as in Kafka. With {@code quota.window.num} windows of {@code
 * quota.window.size.seconds}, a client that starts may use up to {@code num - 1} windows of its quota at once.
 *
 * <p>Memory: a rate exists only for a client that some quota applies to, and is dropped once all its windows have
 * aged, so clients that invent client ids cost nothing beyond the quota window.
 *
 * <p>Thread-safety: called by every connection thread; rates are shared and synchronised, the rest is concurrent.
 */
public final class ClientQuotas {
    private static final double NANOS_TO_PERCENT = 100.0 / TimeUnit.SECONDS.toNanos(1);

    private final ClientQuotaStore store;
    private final int samples;
    private final long windowMs;
    private final Clock clock;
    private final Map<RateKey, QuotaRate> rates = new ConcurrentHashMap<>();
    private final Map<QuotaType, LongAdder> throttledResponses = new EnumMap<>(QuotaType.class);
    private final Map<QuotaType, LongAdder> throttleMillis = new EnumMap<>(QuotaType.class);
    private volatile long lastSweepMs;

    /** The quota that applies to a client: its bound, and the user and client id its rate is shared by. */
    record Limit(double bound, String user, String clientId) {}

    private record RateKey(QuotaType type, String user, String clientId) {}

    public ClientQuotas(ClientQuotaStore store, int samples, long windowMs, Clock clock) {
        if (samples < 2 || windowMs < 1) {
            throw new IllegalArgumentException(
                    "quota.window.num must be at least 2 and the window positive: " + samples + ", " + windowMs);
        }
        this.store = store;
        this.samples = samples;
        this.windowMs = windowMs;
        this.clock = clock;
        for (QuotaType type : QuotaType.values()) {
            throttledResponses.put(type, new LongAdder());
            throttleMillis.put(type, new LongAdder());
        }
        this.lastSweepMs = clock.millis();
    }

    /** Quotas that nobody can set: nothing is ever throttled. */
    public static ClientQuotas none() {
        return new ClientQuotas(ClientQuotaStore.inMemory(), 11, 1_000, Clock.systemUTC());
    }

    /** The store the quotas are read from, for DescribeClientQuotas and AlterClientQuotas. */
    public ClientQuotaStore store() {
        return store;
    }

    /** Whether any client has a quota of {@code type}; when not, nothing needs measuring for it. */
    public boolean enforces(QuotaType type) {
        return store.any(type);
    }

    /** Records a Produce request of {@code bytes}; returns how long to throttle the client, in ms (0: not). */
    public int chargeProduce(String user, String clientId, long bytes) {
        return charge(QuotaType.PRODUCE, user, clientId, bytes, Long.MAX_VALUE);
    }

    /**
     * The most a Fetch answer may hold without being throttled even after a quiet quota window ({@code num - 1}
     * windows of the quota); {@link Integer#MAX_VALUE} without a fetch quota. Kafka caps a fetch's {@code
     * max_bytes} to it, so a small quota cannot starve a consumer that asks for more than it may ever get.
     */
    public int maxFetchBytes(String user, String clientId) {
        Limit limit = store.any(QuotaType.FETCH) ? limit(QuotaType.FETCH, user, clientId) : null;
        if (limit == null) {
            return Integer.MAX_VALUE;
        }
        return (int) Math.min(Integer.MAX_VALUE, limit.bound() * (samples - 1) * windowMs / 1000.0);
    }

    /**
     * Records a Fetch answer of {@code bytes}; returns how long to throttle the client, in ms. A throttled Fetch is
     * answered without records, so its bytes are taken back off the rate (Kafka's "unrecord").
     */
    public int chargeFetch(String user, String clientId, long bytes) {
        Limit limit = store.any(QuotaType.FETCH) ? limit(QuotaType.FETCH, user, clientId) : null;
        if (limit == null) {
            return 0;
        }
        long now = clock.millis();
        QuotaRate rate = rate(QuotaType.FETCH, limit, now);
        rate.record(bytes, now);
        int throttle = clamp(rate.throttleMs(limit.bound(), now));
        if (throttle > 0) {
            rate.record(-bytes, now);
            counted(QuotaType.FETCH, throttle);
        }
        return throttle;
    }

    /** Records {@code nanos} of handling time; returns how long to throttle the client, in ms, at most a window. */
    public int chargeRequestTime(String user, String clientId, long nanos) {
        return charge(QuotaType.REQUEST, user, clientId, nanos * NANOS_TO_PERCENT, windowMs);
    }

    /** Answers throttled for {@code type}'s quota since the broker started. */
    public long throttledResponses(QuotaType type) {
        return throttledResponses.get(type).sum();
    }

    /** The sum of {@code type}'s throttle times since the broker started, in ms. */
    public long throttleMillis(QuotaType type) {
        return throttleMillis.get(type).sum();
    }

    private int charge(QuotaType type, String user, String clientId, double amount, long maxThrottleMs) {
        Limit limit = store.any(type) ? limit(type, user, clientId) : null;
        if (limit == null) {
            return 0;
        }
        long now = clock.millis();
        QuotaRate rate = rate(type, limit, now);
        rate.record(amount, now);
        int throttle = clamp(Math.min(maxThrottleMs, rate.throttleMs(limit.bound(), now)));
        if (throttle > 0) {
            counted(type, throttle);
        }
        return throttle;
    }

    /** The quota of {@code type} that applies to the client, in Kafka's order of precedence; null when none. */
    Limit limit(QuotaType type, String user, String clientId) {
        Double bound;
        if ((bound = store.value(QuotaEntity.userAndClient(user, clientId), type)) != null
                || (bound = store.value(QuotaEntity.userAndClient(user, null), type)) != null) {
            return new Limit(bound, user, clientId);
        }
        if ((bound = store.value(QuotaEntity.of(QuotaEntity.USER, user), type)) != null) {
            return new Limit(bound, user, "");
        }
        if ((bound = store.value(QuotaEntity.userAndClient(null, clientId), type)) != null
                || (bound = store.value(QuotaEntity.userAndClient(null, null), type)) != null) {
            return new Limit(bound, user, clientId);
        }
        if ((bound = store.value(QuotaEntity.of(QuotaEntity.USER, null), type)) != null) {
            return new Limit(bound, user, "");
        }
        if ((bound = store.value(QuotaEntity.of(QuotaEntity.CLIENT_ID, clientId), type)) != null
                || (bound = store.value(QuotaEntity.of(QuotaEntity.CLIENT_ID, null), type)) != null) {
            return new Limit(bound, "", clientId);
        }
        return null;
    }

    private QuotaRate rate(QuotaType type, Limit limit, long now) {
        if (now - lastSweepMs >= samples * windowMs) {
            lastSweepMs = now;
            rates.values().removeIf(r -> r.idleSince(now));
        }
        return rates.computeIfAbsent(
                new RateKey(type, limit.user(), limit.clientId()), k -> new QuotaRate(samples, windowMs));
    }

    private void counted(QuotaType type, int throttle) {
        throttledResponses.get(type).increment();
        throttleMillis.get(type).add(throttle);
    }

    private static int clamp(long ms) {
        return (int) Math.min(Integer.MAX_VALUE, Math.max(0, ms));
    }
}
