package io.orderflow.broker.handler;

import io.orderflow.broker.log.CorruptBatchException;
import io.orderflow.broker.log.DataDirectoryInUseException;
import io.orderflow.broker.log.InvalidConfigException;
import io.orderflow.broker.log.InvalidProducerEpochException;
import io.orderflow.broker.log.InvalidRecordBatchException;
import io.orderflow.broker.log.LogStorageException;
import io.orderflow.broker.log.OffsetOutOfRangeException;
import io.orderflow.broker.log.OutOfOrderSequenceException;
import io.orderflow.broker.log.RecordBatchTooLargeException;
import io.orderflow.broker.log.RecordWithoutKeyException;
import io.orderflow.broker.log.TopicException;
import org.apache.kafka.common.errors.ApiException;
import org.apache.kafka.common.protocol.Errors;

/**
 * The one place where the broker's typed failures become Kafka error codes. Every handler asks this table;
 * none maps an exception itself.
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
            case InvalidConfigException ignored -> Errors.INVALID_CONFIG;
            case LogStorageException ignored -> Errors.KAFKA_STORAGE_ERROR;
            case DataDirectoryInUseException ignored -> Errors.KAFKA_STORAGE_ERROR;
            case TopicException te ->
                switch (te.reason()) {
                    case ALREADY_EXISTS -> Errors.TOPIC_ALREADY_EXISTS;
                    case UNKNOWN_TOPIC_OR_PARTITION -> Errors.UNKNOWN_TOPIC_OR_PARTITION;
                    case UNKNOWN_TOPIC_ID -> Errors.UNKNOWN_TOPIC_ID;
                    case INVALID_NAME -> Errors.INVALID_TOPIC_EXCEPTION;
                    case INVALID_PARTITIONS -> Errors.INVALID_PARTITIONS;
                    case INVALID_REPLICATION_FACTOR -> Errors.INVALID_REPLICATION_FACTOR;
                };
            case ApiException api -> Errors.forException(api);
            default -> Errors.UNKNOWN_SERVER_ERROR;
        };
    }

    /** The Kafka exception to hand to a request's {@code getErrorResponse}, keeping our message. */
    public static ApiException exceptionFor(Throwable e) {
        Errors error = errorFor(e);
        return error.exception(e.getMessage());
    }
}
