package io.orderflow.broker.handler;

import io.orderflow.broker.log.AppendResult;
import io.orderflow.broker.log.LogDirectory;
import io.orderflow.broker.log.LogException;
import io.orderflow.broker.log.PartitionLog;
import io.orderflow.broker.log.RecordWithoutKeyException;
import io.orderflow.broker.log.Topic;
import io.orderflow.broker.txn.TransactionCoordinator;
import io.orderflow.broker.txn.TransactionVerificationException;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Supplier;
import org.apache.kafka.common.InvalidRecordException;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.acl.AclOperation;
import org.apache.kafka.common.errors.ApiException;
import org.apache.kafka.common.message.ProduceRequestData;
import org.apache.kafka.common.message.ProduceResponseData;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.record.internal.MemoryRecords;
import org.apache.kafka.common.record.internal.RecordBatch;
import org.apache.kafka.common.requests.ProduceRequest;
import org.apache.kafka.common.requests.ProduceResponse;

/**
 * Produce: appends each partition's batches and answers by {@code acks}: 0 no answer, 1 once written, -1
 * ({@code all}) once durable under the topic's flush policy (by default: fsynced). A partition that fails
 * (unknown, corrupt batch, keyless record on a compacted topic, sequence error) fails alone; the others are still
 * written. The handler checks only what Kafka's protocol asks of the request (acks, one v2 batch per partition);
 * the batches themselves are validated by {@link PartitionLog#append}, and failures become error codes through
 * {@link ErrorTable}.
 *
 * <p>Authorisation, as Kafka's: a request of a transactional producer needs WRITE on its transactional id (else
 * TRANSACTIONAL_ID_AUTHORIZATION_FAILED for every partition); WRITE on each topic, checked before anything else about
 * its partitions; a topic
 * without it is answered TOPIC_AUTHORIZATION_FAILED for each of its partitions and nothing of it is appended.
 *
 * <p>Appends happen in {@link #start}, on the connection's reading thread and in request order; the wait for the
 * fsync happens in the returned completion, so the producer's next pipelined Produce is appended while this one's
 * fsync runs and both share one group commit, instead of paying one fsync per request in turn.
 */
public final class ProduceHandler implements PipelinedApiHandler<ProduceRequest> {
    private final LogDirectory logs;
    private final Permissions permissions;
    private final TransactionCoordinator transactions;

    /** Without transactions: a transactional batch is refused as belonging to no open transaction. */
    public ProduceHandler(LogDirectory logs, Permissions permissions) {
        this(logs, permissions, null);
    }

    public ProduceHandler(LogDirectory logs, Permissions permissions, TransactionCoordinator transactions) {
        this.logs = logs;
        this.permissions = permissions;
        this.transactions = transactions;
    }

    /** A partition of the request that was appended, and its answer. */
    private record Appended(ProduceResponseData.PartitionProduceResponse response, PartitionLog log) {}

    private record Pending(ProduceResponseData.PartitionProduceResponse response, CompletableFuture<Void> durable) {}

    @Override
    public Completion start(ClientInfo client, ProduceRequest request) {
        ProduceRequestData data = request.data();
        short acks = data.acks();
        ProduceResponseData response = new ProduceResponseData();
        // Every partition is appended first and then all are asked to be durable together, so they are fsynced in one
        // commit round and become readable at the same moment (PartitionLog.awaitDurable(Map)).
        List<Appended> appended = new ArrayList<>();
        Map<PartitionLog, Long> endOffsets = new LinkedHashMap<>();
        boolean invalidAcks = acks != 0 && acks != 1 && acks != -1;
        // As Kafka: a transactional producer needs WRITE on its transactional id for every partition it writes.
        boolean transactionalIdRefused = request.transactionalId() != null
                && !permissions.allows(
                        client,
                        AclOperation.WRITE,
                        org.apache.kafka.common.resource.ResourceType.TRANSACTIONAL_ID,
                        request.transactionalId());
        Map<PartitionLog, CompletableFuture<Void>> durable;
        try {
            for (ProduceRequestData.TopicProduceData topicData : data.topicData()) {
                Optional<Topic> topic =
                        topicData.name() != null && !topicData.name().isEmpty()
                                ? logs.topic(topicData.name())
                                : logs.topic(BrokerNode.ourId(topicData.topicId()));
                ProduceResponseData.TopicProduceResponse topicResponse = new ProduceResponseData.TopicProduceResponse()
                        .setName(topicData.name())
                        .setTopicId(topicData.topicId());
                // A topic named by an id we do not know has no name to authorise; it stays unknown, as in Kafka.
                String name = topicData.name() != null && !topicData.name().isEmpty()
                        ? topicData.name()
                        : topic.map(Topic::name).orElse(null);
                boolean authorized = name == null || permissions.allowsTopic(client, AclOperation.WRITE, name);
                for (ProduceRequestData.PartitionProduceData partitionData : topicData.partitionData()) {
                    ProduceResponseData.PartitionProduceResponse partitionResponse =
                            new ProduceResponseData.PartitionProduceResponse()
                                    .setIndex(partitionData.index())
                                    .setBaseOffset(-1)
                                    .setLogAppendTimeMs(-1)
                                    .setLogStartOffset(-1);
                    topicResponse.partitionResponses().add(partitionResponse);
                    if (transactionalIdRefused) {
                        partitionResponse.setErrorCode(Errors.TRANSACTIONAL_ID_AUTHORIZATION_FAILED.code());
                        continue;
                    }
                    if (!authorized) {
                        partitionResponse.setErrorCode(Errors.TOPIC_AUTHORIZATION_FAILED.code());
                        continue;
                    }
                    if (invalidAcks) {
                        partitionResponse.setErrorCode(Errors.INVALID_REQUIRED_ACKS.code());
                        continue;
                    }
                    Optional<PartitionLog> log = topic.flatMap(t -> logs.partition(t.name(), partitionData.index()));
                    if (log.isEmpty()) {
                        partitionResponse.setErrorCode(Errors.UNKNOWN_TOPIC_OR_PARTITION.code());
                        continue;
                    }
                    try {
                        MemoryRecords records = (MemoryRecords) partitionData.records();
                        if (records == null || records.sizeInBytes() == 0) {
                            partitionResponse
                                    .setErrorCode(Errors.INVALID_RECORD.code())
                                    .setErrorMessage("no records");
                            continue;
                        }
                        // Kafka's own checks for v3+: exactly one v2 batch per partition, zstd only from v7. Several
                        // batches would also let a duplicate first batch hide new ones behind its old offsets.
                        validate(request.version(), records);
                        // Everything else about the batch (CRC, size, keys on a compacted topic, sequence) is the
                        // storage's to check: PartitionLog.append.
                        ByteBuffer buffer = records.buffer();
                        PartitionLog target = log.get();
                        RecordBatch first = records.batches().iterator().next();
                        AppendResult result = first.isTransactional()
                                ? verified(
                                        first,
                                        new TopicPartition(topic.get().name(), partitionData.index()),
                                        () -> target.appendOfRequest(buffer))
                                : target.appendOfRequest(buffer);
                        partitionResponse
                                .setBaseOffset(result.firstOffset())
                                .setLogStartOffset(result.logStartOffset());
                        appended.add(new Appended(partitionResponse, log.get()));
                        endOffsets.merge(log.get(), result.endOffset(), Math::max);
                    } catch (RecordWithoutKeyException e) {
                        // As Kafka's LogValidator: the record at fault is named in record_errors (v8+), so the
                        // producer fails that record with the message and the rest of its batch as collateral.
                        partitionResponse
                                .setErrorCode(ErrorTable.errorFor(e).code())
                                .setErrorMessage(e.getMessage())
                                .setRecordErrors(List.of(new ProduceResponseData.BatchIndexAndErrorMessage()
                                        .setBatchIndex(e.recordIndex())
                                        .setBatchIndexErrorMessage(e.getMessage())));
                    } catch (LogException | ApiException e) {
                        partitionResponse
                                .setErrorCode(ErrorTable.errorFor(e).code())
                                .setErrorMessage(e.getMessage());
                    }
                }
                response.responses().add(topicResponse);
            }
        } finally {
            // Even if the request failed half way, what it appended is committed, as any append is.
            durable = PartitionLog.awaitDurable(endOffsets);
        }
        if (acks == 0) {
            return () -> null;
        }
        List<Pending> pending = acks == -1
                ? appended.stream()
                        .map(a -> new Pending(a.response(), durable.get(a.log())))
                        .toList()
                : List.of();
        long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(Math.max(0, data.timeoutMs()));
        return () -> {
            awaitDurability(pending, deadline);
            return new ProduceResponse(response);
        };
    }

    /**
     * A transactional batch is appended only inside its producer's open transaction with the partition added (KIP-890's
     * server-side defence): a fenced producer or a late write after its transaction ended stores nothing.
     */
    private AppendResult verified(RecordBatch batch, TopicPartition partition, Supplier<AppendResult> append) {
        if (transactions == null) {
            throw new TransactionVerificationException("transactions are not served here");
        }
        return transactions.appendVerified(batch.producerId(), batch.producerEpoch(), partition, append);
    }

    /** Waits for each partition's fsync until {@code deadline} ({@link System#nanoTime()}), the request's timeout. */
    private static void awaitDurability(List<Pending> pending, long deadline) {
        for (Pending p : pending) {
            try {
                p.durable().get(Math.max(0, deadline - System.nanoTime()), TimeUnit.NANOSECONDS);
            } catch (TimeoutException e) {
                p.response().setErrorCode(Errors.REQUEST_TIMED_OUT.code()).setErrorMessage("not durable in time");
            } catch (ExecutionException e) {
                p.response()
                        .setErrorCode(ErrorTable.errorFor(e.getCause()).code())
                        .setErrorMessage(e.getCause().getMessage());
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                p.response().setErrorCode(Errors.REQUEST_TIMED_OUT.code());
            }
        }
    }

    /**
     * Kafka's own checks of a v3+ batch ({@link ProduceRequest#validateRecords}). Before v7 they read the batch's
     * compression type, and attributes naming no codec (ids 5 to 7) make kafka-clients throw, which Apache Kafka
     * answers with UNKNOWN_SERVER_ERROR for the whole request. Here it is the partition's INVALID_RECORD, as the
     * storage answers the same batch at any version ({@code PartitionLog}).
     */
    private static void validate(short version, MemoryRecords records) {
        try {
            ProduceRequest.validateRecords(version, records);
        } catch (IllegalArgumentException e) {
            throw new InvalidRecordException("Unreadable record batch: " + e.getMessage());
        }
    }
}
