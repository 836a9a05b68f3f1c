package io.orderflow.broker.handler;

import io.orderflow.broker.log.AbortedTxn;
import io.orderflow.broker.log.FileRegion;
import io.orderflow.broker.log.LogDirectory;
import io.orderflow.broker.log.LogException;
import io.orderflow.broker.log.LogReadResult;
import io.orderflow.broker.log.PartitionLog;
import io.orderflow.broker.log.Topic;
import io.orderflow.broker.quota.ClientQuotas;
import java.util.ArrayList;
import java.util.Collections;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.apache.kafka.common.IsolationLevel;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.acl.AclOperation;
import org.apache.kafka.common.errors.ApiException;
import org.apache.kafka.common.message.FetchRequestData;
import org.apache.kafka.common.message.FetchResponseData;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.protocol.ObjectSerializationCache;
import org.apache.kafka.common.record.internal.MemoryRecords;
import org.apache.kafka.common.record.internal.UnalignedFileRecords;
import org.apache.kafka.common.requests.AbstractResponse;
import org.apache.kafka.common.requests.FetchMetadata;
import org.apache.kafka.common.requests.FetchRequest;
import org.apache.kafka.common.requests.FetchResponse;

/**
 * Fetch: reads each requested partition from its offset, up to the partition's and the request's byte limits
 * (the first batch is always returned whole, as KIP-74 requires), and long-polls: while fewer than
 * {@code min.bytes} are available it waits up to {@code max.wait.ms} for any requested partition to get data,
 * unless a partition is unknown or cannot be read (then it answers at once, as Kafka does).
 *
 * <p>Fetch sessions (KIP-227, from v7): a fetch at epoch 0 is a full fetch that opens a session ({@link
 * FetchSessionCache}) when the cache has room, and its answer carries the session id; later fetches of the session
 * name only the partitions whose position changed (or that are added or forgotten), are read for every partition of
 * the session, and are answered with only the partitions that have news. An unknown session id is
 * FETCH_SESSION_ID_NOT_FOUND, an epoch other than the next one INVALID_FETCH_SESSION_EPOCH (both for the whole
 * fetch, which reads nothing); epoch -1 closes the session and fetches without one. Records go from the segment file to the socket
 * without a copy. A {@code read_committed} fetch stops at the partition's last stable offset (the first offset of its
 * oldest open transaction) and lists the aborted transactions its records may belong to, which the consumer skips;
 * every answer carries the last stable offset.
 *
 * <p>A consumer with a {@code consumer_byte_rate} quota ({@link ClientQuotas}) gets at most what the quota allows in
 * its measured span ({@code max_bytes} is capped to it, as in Kafka), and its answer's size is charged to it; when
 * that puts it over its quota, the answer goes out without any partition and with {@code throttle_time_ms} set, the
 * empty full-fetch answer KIP-219 describes, and the consumer asks again for the same offsets after the wait.
 *
 * <p>Authorisation, as Kafka's for consumers: READ on each topic, checked before the topic's existence; a topic
 * without it is answered TOPIC_AUTHORIZATION_FAILED for each of its partitions, without records, and is not
 * waited on (nor does it end the wait of the others, as in Kafka).
 */
public final class FetchHandler implements ApiHandler<FetchRequest> {
    private final LogDirectory logs;
    private final Permissions permissions;
    private final ClientQuotas quotas;
    private final FetchSessionCache sessions;

    /** Without quotas and without fetch sessions (every fetch a full one). */
    public FetchHandler(LogDirectory logs, Permissions permissions) {
        this(logs, permissions, ClientQuotas.none(), new FetchSessionCache(0, 0, java.time.Clock.systemUTC()));
    }

    public FetchHandler(LogDirectory logs, Permissions permissions, ClientQuotas quotas, FetchSessionCache sessions) {
        this.logs = logs;
        this.permissions = permissions;
        this.quotas = quotas;
        this.sessions = sessions;
    }

    private record Target(
            FetchResponseData.PartitionData response, PartitionLog log, long offset, int maxBytes, boolean committed) {}

    @Override
    public AbstractResponse handle(ClientInfo client, FetchRequest request) {
        FetchRequestData data = request.data();
        FetchResponseData response = new FetchResponseData().setSessionId(0).setErrorCode(Errors.NONE.code());
        // KIP-227: which session this fetch belongs to, and so which partitions it reads.
        List<FetchRequestData.FetchTopic> wanted = data.topics();
        FetchSessionCache.Session session = null;
        boolean incremental = false;
        boolean createSession = false;
        if (request.version() >= 7) {
            int sessionId = data.sessionId();
            int epoch = data.sessionEpoch();
            if (epoch == FetchMetadata.FINAL_EPOCH || epoch == FetchMetadata.INITIAL_EPOCH) {
                if (sessionId != FetchMetadata.INVALID_SESSION_ID) {
                    sessions.remove(sessionId);
                }
                createSession = epoch == FetchMetadata.INITIAL_EPOCH;
            } else if (sessionId == FetchMetadata.INVALID_SESSION_ID) {
                return sessionError(Errors.FETCH_SESSION_ID_NOT_FOUND); // as Kafka: no session has id 0
            } else {
                Optional<FetchSessionCache.Session> found = sessions.find(sessionId);
                if (found.isEmpty()) {
                    return sessionError(Errors.FETCH_SESSION_ID_NOT_FOUND);
                }
                wanted = found.get().update(data);
                if (wanted == null) {
                    return sessionError(Errors.INVALID_FETCH_SESSION_EPOCH);
                }
                session = found.get();
                incremental = true;
            }
        }
        List<Target> targets = new ArrayList<>();
        Set<PartitionLog> listed = Collections.newSetFromMap(new IdentityHashMap<>());
        boolean unknownPartitions = false;
        boolean readCommitted = data.isolationLevel() == IsolationLevel.READ_COMMITTED.id();
        for (FetchRequestData.FetchTopic topicData : wanted) {
            Optional<Topic> topic =
                    topicData.topic() != null && !topicData.topic().isEmpty()
                            ? logs.topic(topicData.topic())
                            : logs.topic(BrokerNode.ourId(topicData.topicId()));
            FetchResponseData.FetchableTopicResponse topicResponse = new FetchResponseData.FetchableTopicResponse()
                    .setTopic(topicData.topic())
                    .setTopicId(topicData.topicId() == null ? Uuid.ZERO_UUID : topicData.topicId());
            // A topic named by an id we do not know has no name to authorise; it stays unknown, as in Kafka.
            String name = topicData.topic() != null && !topicData.topic().isEmpty()
                    ? topicData.topic()
                    : topic.map(Topic::name).orElse(null);
            boolean authorized = name == null || permissions.allowsTopic(client, AclOperation.READ, name);
            Errors topicError = topic.isEmpty()
                    ? (request.version() >= 13 ? Errors.UNKNOWN_TOPIC_ID : Errors.UNKNOWN_TOPIC_OR_PARTITION)
                    : Errors.NONE;
            for (FetchRequestData.FetchPartition p : topicData.partitions()) {
                Optional<PartitionLog> log = authorized && topicError == Errors.NONE
                        ? topic.flatMap(t -> logs.partition(t.name(), p.partition()))
                        : Optional.empty();
                if (log.isPresent() && !listed.add(log.get())) {
                    // Listed before. Kafka keys a fetch's partitions by topic and partition, so it reads and answers
                    // each once; reading every copy would let one request of repeated entries cost a thousand reads.
                    continue;
                }
                FetchResponseData.PartitionData partition = new FetchResponseData.PartitionData()
                        .setPartitionIndex(p.partition())
                        .setHighWatermark(-1)
                        .setLastStableOffset(-1)
                        .setLogStartOffset(-1)
                        .setRecords(MemoryRecords.EMPTY);
                topicResponse.partitions().add(partition);
                if (!authorized) {
                    partition.setErrorCode(Errors.TOPIC_AUTHORIZATION_FAILED.code());
                    continue;
                }
                if (topicError != Errors.NONE || log.isEmpty()) {
                    partition.setErrorCode(
                            (topicError != Errors.NONE ? topicError : Errors.UNKNOWN_TOPIC_OR_PARTITION).code());
                    unknownPartitions = true;
                    continue;
                }
                targets.add(new Target(partition, log.get(), p.fetchOffset(), p.partitionMaxBytes(), readCommitted));
            }
            response.responses().add(topicResponse);
        }
        long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(Math.max(0, data.maxWaitMs()));
        String user = client.principal().name();
        int maxBytes = Math.min(data.maxBytes(), quotas.maxFetchBytes(user, client.clientId()));
        int minBytes = Math.min(data.minBytes(), maxBytes);
        int bytes = readTogether(targets, maxBytes);
        // As Kafka does, a partition that cannot be read ends the wait at once: waiting fixes neither an unknown
        // partition nor an offset out of range, and the client should hear of it now, not after max.wait.ms.
        while (bytes < minBytes
                && !unknownPartitions
                && !anyFailed(targets)
                && System.nanoTime() < deadline
                && !targets.isEmpty()) {
            if (!awaitData(targets, deadline)) {
                break;
            }
            bytes = readTogether(targets, maxBytes);
        }
        if (session != null) {
            session.answered(response, incremental);
            response.setSessionId(session.id());
        }
        int throttle = quotas.chargeFetch(
                user, client.clientId(), response.size(new ObjectSerializationCache(), request.version()));
        if (throttle > 0) {
            if (session != null) {
                session.forgetAnswers(); // nothing of this answer reaches the consumer
            }
            // A throttled full fetch opens no session (the consumer starts again with a full fetch, as in Kafka).
            return FetchResponse.of(new FetchResponseData()
                    .setThrottleTimeMs(throttle)
                    .setErrorCode(Errors.NONE.code())
                    .setSessionId(session == null ? 0 : session.id()));
        }
        if (createSession) {
            session = sessions.create(data.topics()).orElse(null);
            if (session != null) {
                session.answered(response, false);
                response.setSessionId(session.id());
            }
        }
        return FetchResponse.of(response);
    }

    private static FetchResponse sessionError(Errors error) {
        return FetchResponse.of(
                new FetchResponseData().setErrorCode(error.code()).setSessionId(0));
    }

    /**
     * {@link #readAll}, and once more if a partition it found empty became readable while it read the others: a commit
     * round publishes a produce's partitions together, and one that does so during the pass would otherwise leave the
     * partitions read before it out of this answer and give them to the next fetch.
     */
    private static int readTogether(List<Target> targets, int requestMaxBytes) {
        int bytes = readAll(targets, requestMaxBytes);
        if (bytes > 0 && bytes < requestMaxBytes && targets.stream().anyMatch(FetchHandler::becameReadable)) {
            bytes = readAll(targets, requestMaxBytes);
        }
        return bytes;
    }

    private static boolean becameReadable(Target t) {
        FetchResponseData.PartitionData partition = t.response();
        return partition.errorCode() == Errors.NONE.code()
                && partition.records().sizeInBytes() == 0
                && (t.committed() ? t.log().lastStableOffset() : t.log().highWatermark()) > t.offset();
    }

    private static boolean anyFailed(List<Target> targets) {
        return targets.stream().anyMatch(t -> t.response().errorCode() != Errors.NONE.code());
    }

    /** Reads every target afresh; returns the bytes gathered. */
    private static int readAll(List<Target> targets, int requestMaxBytes) {
        int total = 0;
        for (Target t : targets) {
            FetchResponseData.PartitionData partition = t.response();
            try {
                int budget = Math.min(t.maxBytes(), Math.max(0, requestMaxBytes - total));
                int bytes = total == 0 ? Math.max(1, budget) : budget;
                LogReadResult result = t.committed()
                        ? t.log().readCommitted(t.offset(), bytes)
                        : t.log().read(t.offset(), bytes, false);
                FileRegion region = result.records();
                if (total > 0 && region.size() > budget) {
                    region = FileRegion.EMPTY; // only the first partition may exceed the limit
                }
                partition
                        .setErrorCode(Errors.NONE.code())
                        .setHighWatermark(result.highWatermark())
                        .setLastStableOffset(result.lastStableOffset())
                        .setAbortedTransactions(
                                t.committed()
                                        ? (region.isEmpty() ? List.of() : aborted(result.abortedTransactions()))
                                        : null)
                        .setLogStartOffset(result.logStartOffset())
                        .setRecords(
                                region.isEmpty()
                                        ? MemoryRecords.EMPTY
                                        : new UnalignedFileRecords(region.channel(), region.position(), region.size()));
                total += region.size();
            } catch (LogException | ApiException e) {
                partition
                        .setErrorCode(ErrorTable.errorFor(e).code())
                        .setHighWatermark(t.log().highWatermark())
                        .setLastStableOffset(t.log().lastStableOffset())
                        .setLogStartOffset(t.log().logStartOffset())
                        .setRecords(MemoryRecords.EMPTY);
            }
        }
        return total;
    }

    private static List<FetchResponseData.AbortedTransaction> aborted(List<AbortedTxn> aborted) {
        List<FetchResponseData.AbortedTransaction> out = new ArrayList<>(aborted.size());
        for (AbortedTxn t : aborted) {
            out.add(new FetchResponseData.AbortedTransaction()
                    .setProducerId(t.producerId())
                    .setFirstOffset(t.firstOffset()));
        }
        return out;
    }

    /** Waits until any target's high watermark moves or the deadline passes; false if nothing came. */
    private static boolean awaitData(List<Target> targets, long deadline) {
        List<CompletableFuture<Void>> waits = new ArrayList<>();
        for (Target t : targets) {
            waits.add(t.log().awaitData(Math.max(t.offset(), t.log().highWatermark())));
        }
        try {
            CompletableFuture.anyOf(waits.toArray(CompletableFuture[]::new))
                    .get(Math.max(0, deadline - System.nanoTime()), TimeUnit.NANOSECONDS);
            return true;
        } catch (TimeoutException e) {
            return false;
        } catch (ExecutionException e) {
            return true;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return false;
        } finally {
            for (int i = 0; i < targets.size(); i++) {
                if (!waits.get(i).isDone()) {
                    targets.get(i).log().forgetWait(waits.get(i));
                }
            }
        }
    }
}
