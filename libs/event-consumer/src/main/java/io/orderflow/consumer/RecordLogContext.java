package io.orderflow.consumer;

import io.orderflow.contracts.EventHeaders;
import io.orderflow.contracts.TraceIds;
import java.nio.charset.StandardCharsets;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.common.header.Header;
import org.jboss.logging.MDC;

/**
 * The log context of one consumed record, for the lines logged about it: {@code orderId} (the record's key),
 * {@code eventId} and {@code traceId} (from its {@code eventId} and {@code traceparent} headers, which the relay sets
 * whether or not the value can be decoded). JSON logs carry them as MDC fields. Put on the calling thread and removed
 * on close; not thread-safe (one thread's MDC).
 */
final class RecordLogContext implements AutoCloseable {

    static final String ORDER_ID = "orderId";
    static final String EVENT_ID = "eventId";
    static final String TRACE_ID = "traceId";

    private RecordLogContext(ConsumerRecord<String, byte[]> record) {
        put(ORDER_ID, record.key());
        put(EVENT_ID, header(record, EventHeaders.EVENT_ID));
        TraceIds.of(header(record, EventHeaders.TRACEPARENT)).ifPresent(id -> put(TRACE_ID, id));
    }

    static RecordLogContext of(ConsumerRecord<String, byte[]> record) {
        return new RecordLogContext(record);
    }

    private static void put(String key, String value) {
        if (value != null) {
            MDC.put(key, value);
        }
    }

    private static String header(ConsumerRecord<String, byte[]> record, String name) {
        Header header = record.headers().lastHeader(name);
        return header == null || header.value() == null ? null : new String(header.value(), StandardCharsets.UTF_8);
    }

    @Override
    public void close() {
        MDC.remove(ORDER_ID);
        MDC.remove(EVENT_ID);
        MDC.remove(TRACE_ID);
    }
}
