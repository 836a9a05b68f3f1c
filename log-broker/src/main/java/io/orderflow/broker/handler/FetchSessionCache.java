package io.orderflow.broker.handler;

import java.security.SecureRandom;
import java.time.Clock;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.message.FetchRequestData;
import org.apache.kafka.common.message.FetchResponseData;

/**
 * The broker's fetch sessions (KIP-227): for each session id, the partitions a consumer fetches and what the last
 * answer told it of each, so that its next Fetch names only what changed (new positions, partitions added or
 * forgotten) and the answer lists only partitions with news (records, an error, a moved high watermark, last stable
 * offset or log start offset).
 *
 * <p><b>Bounded.</b> At most {@code maxSessions} sessions (Kafka's {@code max.incremental.fetch.session.cache.slots},
 * 1000). When the cache is full, a new session takes the place of the least recently used one if that one has been
 * idle for {@code evictionIdleMs} (Kafka's {@code min.incremental.fetch.session.eviction.ms}, two minutes); otherwise
 * no session is made and the consumer goes on with full fetches (session id 0), which every client accepts. A
 * consumer whose session was evicted hears FETCH_SESSION_ID_NOT_FOUND and starts a new one.
 *
 * <p>Thread-safe: the cache under its own lock, each session under its own.
 */
public final class FetchSessionCache {
    /** Kafka's {@code max.incremental.fetch.session.cache.slots} default. */
    public static final int DEFAULT_MAX_SESSIONS = 1000;
    /** Kafka's {@code min.incremental.fetch.session.eviction.ms} default. */
    public static final long DEFAULT_EVICTION_IDLE_MS = 120_000;

    private final int maxSessions;
    private final long evictionIdleMs;
    private final Clock clock;
    private final SecureRandom random = new SecureRandom();
    /** In access order: the first is the least recently used. */
    private final LinkedHashMap<Integer, Session> sessions = new LinkedHashMap<>(16, 0.75f, true);

    public FetchSessionCache(int maxSessions, long evictionIdleMs, Clock clock) {
        this.maxSessions = maxSessions;
        this.evictionIdleMs = evictionIdleMs;
        this.clock = clock;
    }

    /** One partition of a session, as the consumer names it: by topic name before Fetch v13, by topic id from it. */
    record PartitionKey(String topic, Uuid topicId, int partition) {
        static PartitionKey of(FetchRequestData.FetchTopic topic, int partition) {
            return new PartitionKey(
                    topic.topic() == null ? "" : topic.topic(),
                    topic.topicId() == null ? Uuid.ZERO_UUID : topic.topicId(),
                    partition);
        }

        static PartitionKey of(FetchResponseData.FetchableTopicResponse topic, int partition) {
            return new PartitionKey(
                    topic.topic() == null ? "" : topic.topic(),
                    topic.topicId() == null ? Uuid.ZERO_UUID : topic.topicId(),
                    partition);
        }
    }

    /** What a session holds of one partition: the consumer's position and what it was last told. */
    private static final class Cached {
        long fetchOffset;
        int maxBytes;
        long highWatermark = -1;
        long lastStableOffset = -1;
        long logStartOffset = -1;

        Cached(long fetchOffset, int maxBytes) {
            this.fetchOffset = fetchOffset;
            this.maxBytes = maxBytes;
        }
    }

    /** One consumer's session. */
    public final class Session {
        private final int id;
        private final LinkedHashMap<PartitionKey, Cached> partitions = new LinkedHashMap<>();
        private int nextEpoch = 1;
        private long lastUsedMs;

        private Session(int id) {
            this.id = id;
            this.lastUsedMs = clock.millis();
        }

        public int id() {
            return id;
        }

        /**
         * Applies an incremental Fetch: its partitions are added or their positions replaced, its forgotten ones
         * dropped, and the session expects the next epoch.
         *
         * @return every partition of the session, as the topics of a full request, for the handler to read; null when
         *     the request's epoch is not the one the session expects, and nothing changed
         */
        synchronized List<FetchRequestData.FetchTopic> update(FetchRequestData data) {
            if (data.sessionEpoch() != nextEpoch) {
                return null;
            }
            for (FetchRequestData.ForgottenTopic forgotten : data.forgottenTopicsData()) {
                for (int p : forgotten.partitions()) {
                    partitions.remove(new PartitionKey(
                            forgotten.topic() == null ? "" : forgotten.topic(),
                            forgotten.topicId() == null ? Uuid.ZERO_UUID : forgotten.topicId(),
                            p));
                }
            }
            add(data.topics());
            nextEpoch = nextEpoch == Integer.MAX_VALUE ? 1 : nextEpoch + 1;
            lastUsedMs = clock.millis();
            return asTopics();
        }

        private void add(List<FetchRequestData.FetchTopic> topics) {
            for (FetchRequestData.FetchTopic topic : topics) {
                for (FetchRequestData.FetchPartition p : topic.partitions()) {
                    PartitionKey key = PartitionKey.of(topic, p.partition());
                    Cached cached = partitions.get(key);
                    if (cached == null) {
                        partitions.put(key, new Cached(p.fetchOffset(), p.partitionMaxBytes()));
                    } else {
                        cached.fetchOffset = p.fetchOffset();
                        cached.maxBytes = p.partitionMaxBytes();
                    }
                }
            }
        }

        private List<FetchRequestData.FetchTopic> asTopics() {
            List<FetchRequestData.FetchTopic> topics = new ArrayList<>();
            FetchRequestData.FetchTopic current = null;
            for (Map.Entry<PartitionKey, Cached> e : partitions.entrySet()) {
                PartitionKey key = e.getKey();
                if (current == null
                        || !current.topic().equals(key.topic())
                        || !current.topicId().equals(key.topicId())) {
                    current = new FetchRequestData.FetchTopic()
                            .setTopic(key.topic())
                            .setTopicId(key.topicId());
                    topics.add(current);
                }
                current.partitions()
                        .add(new FetchRequestData.FetchPartition()
                                .setPartition(key.partition())
                                .setFetchOffset(e.getValue().fetchOffset)
                                .setPartitionMaxBytes(e.getValue().maxBytes));
            }
            return topics;
        }

        /**
         * Records what {@code response} tells the consumer; with {@code incremental}, first drops from it the
         * partitions with no news since the last answer (and topics left with none).
         */
        synchronized void answered(FetchResponseData response, boolean incremental) {
            List<PartitionKey> withRecords = new ArrayList<>();
            for (Iterator<FetchResponseData.FetchableTopicResponse> topics =
                            response.responses().iterator();
                    topics.hasNext(); ) {
                FetchResponseData.FetchableTopicResponse topic = topics.next();
                topic.partitions().removeIf(p -> {
                    PartitionKey key = PartitionKey.of(topic, p.partitionIndex());
                    Cached cached = partitions.get(key);
                    if (cached == null) {
                        return false;
                    }
                    boolean records = p.records() != null && p.records().sizeInBytes() > 0;
                    boolean news = p.errorCode() != 0
                            || records
                            || p.highWatermark() != cached.highWatermark
                            || p.lastStableOffset() != cached.lastStableOffset
                            || p.logStartOffset() != cached.logStartOffset;
                    // After an error the bounds are not known to the consumer: the next answer sends them again.
                    boolean error = p.errorCode() != 0;
                    cached.highWatermark = error ? -1 : p.highWatermark();
                    cached.lastStableOffset = error ? -1 : p.lastStableOffset();
                    cached.logStartOffset = error ? -1 : p.logStartOffset();
                    if (records) {
                        withRecords.add(key);
                    }
                    return incremental && !news;
                });
                if (incremental && topic.partitions().isEmpty()) {
                    topics.remove();
                }
            }
            // Round robin, as Kafka does: partitions that just returned records are read last next time, so that a
            // busy partition early in the session cannot keep the request's byte limit from the others.
            for (PartitionKey key : withRecords) {
                partitions.put(key, partitions.remove(key));
            }
        }

        /** Forgets what the answers told, so the next answer lists every partition: for an answer not delivered. */
        synchronized void forgetAnswers() {
            for (Cached cached : partitions.values()) {
                cached.highWatermark = -1;
                cached.lastStableOffset = -1;
                cached.logStartOffset = -1;
            }
        }
    }

    /** The session {@code id}, if the cache holds it. */
    synchronized Optional<Session> find(int id) {
        return Optional.ofNullable(sessions.get(id));
    }

    synchronized void remove(int id) {
        sessions.remove(id);
    }

    /**
     * A new session of the partitions of a full Fetch, or empty when the cache is full of sessions used within the
     * eviction time.
     */
    synchronized Optional<Session> create(List<FetchRequestData.FetchTopic> topics) {
        if (maxSessions <= 0) {
            return Optional.empty();
        }
        if (sessions.size() >= maxSessions) {
            Map.Entry<Integer, Session> eldest = sessions.entrySet().iterator().next();
            if (clock.millis() - eldest.getValue().lastUsedMs < evictionIdleMs) {
                return Optional.empty();
            }
            sessions.remove(eldest.getKey());
        }
        int id;
        do {
            id = random.nextInt(Integer.MAX_VALUE - 1) + 1;
        } while (sessions.containsKey(id));
        Session session = new Session(id);
        session.add(topics);
        sessions.put(id, session);
        return Optional.of(session);
    }

    public synchronized int size() {
        return sessions.size();
    }
}
