package io.orderflow.consumer;

import io.opentelemetry.api.OpenTelemetry;
import io.opentelemetry.api.trace.Span;
import io.opentelemetry.api.trace.SpanKind;
import io.opentelemetry.api.trace.StatusCode;
import io.opentelemetry.api.trace.Tracer;
import io.opentelemetry.context.Context;
import io.orderflow.contracts.EventHeaders;
import io.orderflow.contracts.MessagingAttributes;
import io.orderflow.contracts.Traceparent;
import java.nio.charset.StandardCharsets;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.header.Header;

/**
 * The OpenTelemetry spans of consumed records, so that one trace runs from {@code POST /orders} through the outbox row,
 * the relay and the record to every consumer, and on through retry and dead-letter topics.
 *
 * <p>Each record gets a {@link SpanKind#CONSUMER} span {@code process <topic>} whose parent is the context in the
 * record's {@code traceparent} header (the relay's publish span; a record without one starts a new trace). The spans of
 * a batch share its time: they start when the batch does and end when it is accounted for, because the batch is one
 * transaction. A record routed to a retry or dead-letter topic gets a {@link SpanKind#PRODUCER} span {@code publish
 * <topic>}, a child of its processing span, whose context replaces the routed record's {@code traceparent}: the retry
 * consumer's span is that hop's child. Attribute names follow OpenTelemetry's messaging conventions.
 *
 * <p>With the OpenTelemetry SDK disabled the spans are no-ops and the headers are passed on unchanged. Thread-safe.
 */
public final class RecordSpans {

    private final Tracer tracer;
    private final String group;

    public RecordSpans(OpenTelemetry openTelemetry, String group) {
        this.tracer = openTelemetry.getTracer("io.orderflow.consumer");
        this.group = group;
    }

    /** Spans that record nothing: for a processor without tracing. */
    public static RecordSpans none(String group) {
        return new RecordSpans(OpenTelemetry.noop(), group);
    }

    /** Starts the processing span of {@code record}; the caller ends it. */
    Span startProcessing(ConsumerRecord<String, byte[]> record) {
        Context parent =
                Context.root().with(Span.wrap(Traceparent.toSpanContext(header(record, EventHeaders.TRACEPARENT))));
        Span span = tracer.spanBuilder("process " + record.topic())
                .setParent(parent)
                .setSpanKind(SpanKind.CONSUMER)
                .setAttribute(MessagingAttributes.SYSTEM, "kafka")
                .setAttribute(MessagingAttributes.OPERATION, "process")
                .setAttribute(MessagingAttributes.DESTINATION, record.topic())
                .setAttribute(MessagingAttributes.PARTITION, Integer.toString(record.partition()))
                .setAttribute(MessagingAttributes.OFFSET, record.offset())
                .setAttribute(MessagingAttributes.GROUP, group)
                .startSpan();
        if (record.key() != null) {
            span.setAttribute(MessagingAttributes.KEY, record.key());
        }
        String eventId = header(record, EventHeaders.EVENT_ID);
        if (eventId != null) {
            span.setAttribute(MessagingAttributes.MESSAGE_ID, eventId);
        }
        String eventType = header(record, EventHeaders.EVENT_TYPE);
        if (eventType != null) {
            span.setAttribute(MessagingAttributes.EVENT_TYPE, eventType);
        }
        return span;
    }

    /** Marks {@code processing} as failed by {@code cause} (it is retried or dead-lettered). */
    static void failed(Span processing, Throwable cause) {
        processing.recordException(cause);
        processing.setStatus(StatusCode.ERROR, String.valueOf(cause.getMessage()));
    }

    /**
     * Starts the publish span of a record routed to a retry or dead-letter topic, a child of {@code processing}, and
     * puts its context in {@code routed}'s {@code traceparent} header (when tracing is on). The caller ends it when the
     * broker answers.
     */
    Span startHop(Span processing, ProducerRecord<String, byte[]> routed) {
        Span hop = tracer.spanBuilder("publish " + routed.topic())
                .setParent(Context.root().with(processing))
                .setSpanKind(SpanKind.PRODUCER)
                .setAttribute(MessagingAttributes.SYSTEM, "kafka")
                .setAttribute(MessagingAttributes.OPERATION, "send")
                .setAttribute(MessagingAttributes.DESTINATION, routed.topic())
                .startSpan();
        String traceparent = Traceparent.of(hop.getSpanContext());
        if (traceparent != null) {
            routed.headers().remove(EventHeaders.TRACEPARENT);
            routed.headers().add(EventHeaders.TRACEPARENT, traceparent.getBytes(StandardCharsets.UTF_8));
        }
        return hop;
    }

    private static String header(ConsumerRecord<String, byte[]> record, String name) {
        Header header = record.headers().lastHeader(name);
        return header == null || header.value() == null ? null : new String(header.value(), StandardCharsets.UTF_8);
    }
}
