package io.orderflow.broker.handler;

import io.orderflow.broker.group.GroupRecordsTooLargeException;
import io.orderflow.broker.group.GroupStorageException;
import io.orderflow.broker.group.GroupStoreClosedException;
import io.orderflow.broker.log.CorruptBatchException;
import io.orderflow.broker.log.DataDirectoryInUseException;
import io.orderflow.broker.log.InvalidConfigException;
import io.orderflow.broker.log.InvalidProducerEpochException;
import io.orderflow.broker.log.InvalidRecordBatchException;
import io.orderflow.broker.log.InvalidTxnStateException;
import io.orderflow.broker.log.LogStorageException;
import io.orderflow.broker.log.OffsetOutOfRangeException;
import io.orderflow.broker.log.OutOfOrderSequenceException;
import io.orderflow.broker.log.RecordBatchTooLargeException;
import io.orderflow.broker.log.RecordWithoutKeyException;
import io.orderflow.broker.log.TopicException;
import io.orderflow.broker.txn.TransactionLogUnavailableException;
import io.orderflow.broker.txn.TransactionVerificationException;
import org.apache.kafka.common.errors.ApiException;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.Errors;

/**
 * The one place where the broker's typed failures become Kafka error codes. Every handler asks this table, and so
 * does {@link RequestDispatcher} for whatever a handler or the group coordinator throws; no other class maps an
 * exception itself (the coordinator fails a request's future with the exception and picks no code).
 *
 * <p><b>The rows.</b> Each typed failure of the storage ({@code log}) and of the coordinator's storage ({@code
 * group}) has exactly one code, chosen as Apache Kafka answers the same condition, except where noted:
 *
 * <ul>
 *   <li>The file system failing a partition ({@link LogStorageException}, {@link DataDirectoryInUseException}, a
 *       corrupt segment): KAFKA_STORAGE_ERROR.
 *   <li>The file system failing {@code __consumer_offsets} under a group request ({@link GroupStorageException}):
 *       KAFKA_STORAGE_ERROR, not Kafka's NOT_COORDINATOR. Kafka answers NOT_COORDINATOR because its failed log
 *       directory goes offline and the partition's leadership, and with it the coordinator, moves to another
 *       broker, which the client finds and retries against. This broker is the only one: FindCoordinator names
 *       it again, and a client told NOT_COORDINATOR retries the same disk until its timeout (a JoinGroup inside
 *       {@code poll()} without end), so the outage shows only as growing lag. KAFKA_STORAGE_ERROR is what the
 *       same disk answers producers; Kafka's consumers raise it to the application ("Unexpected error in
 *       commit", or from {@code poll()}), and the dispatcher records it as a fault with its stack trace.
 *   <li>The same failure under a ConsumerGroupHeartbeat ({@link #errorFor(ApiKeys, Throwable)}): NOT_COORDINATOR,
 *       Kafka's code. The KIP-848 consumer takes KAFKA_STORAGE_ERROR there as fatal: its member stops for good and
 *       never rejoins, even once the disk is back. Told NOT_COORDINATOR it looks the coordinator up and retries. The
 *       dispatcher still records the failure as a fault.
 *   <li>A coordinator closed for shutdown ({@link GroupStoreClosedException}): NOT_COORDINATOR, as Kafka answers
 *       for a coordinator it unloaded. Here retrying is right: the client looks the coordinator up again and
 *       finds the broker once it has restarted.
 *   <li>A group's records over the offsets topic's {@code max.message.bytes} ({@link
 *       GroupRecordsTooLargeException}): UNKNOWN_SERVER_ERROR, as Kafka's group coordinator answers it (there is
 *       no group error code for it, and retrying cannot help); recorded as a fault.
 * </ul>
 *
 * <p><b>Everything else</b> ({@code default}): UNKNOWN_SERVER_ERROR. An exception without a row is a bug, and
 * {@code RequestDispatcher.failed} records every UNKNOWN_SERVER_ERROR and KAFKA_STORAGE_ERROR answer in {@link
 * RequestFaults} (counted, logged with its stack trace); every other code is the request's answer, not a fault.
 * A new typed failure therefore needs its row here, or it is answered and counted as a bug.
 */
public final class ErrorTable {
    private ErrorTable() {}

    public static Errors errorFor(Throwable e) {
        Throwable t = e instanceof java.util.concurrent.CompletionException && e.getCause() != null ? e.getCause() : e;
        return switch (t) {
            case OffsetOutOfRangeException ignored -> Errors.OFFSET_OUT_OF_RANGE;
            case CorruptBatchException c -> c.file() == null ? Errors.CORRUPT_MESSAGE : Errors.KAFKA_STORAGE_ERROR;
            case RecordBatchTooLargeException ignored -> Errors.MESSAGE_TOO_LARGE;
            case InvalidRecordBatchException ignored -> Errors.INVALID_RECORD;
            case RecordWithoutKeyException ignored -> Errors.INVALID_RECORD;
            case OutOfOrderSequenceException ignored -> Errors.OUT_OF_ORDER_SEQUENCE_NUMBER;
            case InvalidProducerEpochException ignored -> Errors.INVALID_PRODUCER_EPOCH;
            case InvalidTxnStateException ignored -> Errors.INVALID_TXN_STATE;
            case TransactionVerificationException ignored -> Errors.INVALID_TXN_STATE;
            case TransactionLogUnavailableException ignored -> Errors.COORDINATOR_NOT_AVAILABLE;
            case InvalidConfigException ignored -> Errors.INVALID_CONFIG;
            case LogStorageException ignored -> Errors.KAFKA_STORAGE_ERROR;
            case DataDirectoryInUseException ignored -> Errors.KAFKA_STORAGE_ERROR;
            case GroupStorageException ignored -> Errors.KAFKA_STORAGE_ERROR;
            case GroupStoreClosedException ignored -> Errors.NOT_COORDINATOR;
            case GroupRecordsTooLargeException ignored -> Errors.UNKNOWN_SERVER_ERROR;
            case TopicException te ->
                switch (te.reason()) {
                    case ALREADY_EXISTS -> Errors.TOPIC_ALREADY_EXISTS;
                    case UNKNOWN_TOPIC_OR_PARTITION -> Errors.UNKNOWN_TOPIC_OR_PARTITION;
                    case UNKNOWN_TOPIC_ID -> Errors.UNKNOWN_TOPIC_ID;
                    case INVALID_NAME -> Errors.INVALID_TOPIC_EXCEPTION;
                    case INVALID_PARTITIONS -> Errors.INVALID_PARTITIONS;
                    case INVALID_REPLICATION_FACTOR -> Errors.INVALID_REPLICATION_FACTOR;
                    case PARTITION_LIMIT -> Errors.POLICY_VIOLATION;
                };
            case ApiException api -> Errors.forException(api);
            default -> Errors.UNKNOWN_SERVER_ERROR;
        };
    }

    /** The code for {@code e} as an answer to {@code api}: the table's, with the one exception per API above. */
    public static Errors errorFor(ApiKeys api, Throwable e) {
        Errors error = errorFor(e);
        return api == ApiKeys.CONSUMER_GROUP_HEARTBEAT && error == Errors.KAFKA_STORAGE_ERROR
                ? Errors.NOT_COORDINATOR
                : error;
    }

    /** The Kafka exception to hand to a request's {@code getErrorResponse}, keeping our message. */
    public static ApiException exceptionFor(Throwable e) {
        Errors error = errorFor(e);
        return error.exception(e.getMessage());
    }

    /** The Kafka exception to hand to a request of {@code api}'s {@code getErrorResponse}, keeping our message. */
    public static ApiException exceptionFor(ApiKeys api, Throwable e) {
        return errorFor(api, e).exception(e.getMessage());
    }
}
