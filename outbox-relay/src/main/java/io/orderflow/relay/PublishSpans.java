package io.orderflow.relay;

import io.opentelemetry.api.OpenTelemetry;
import io.opentelemetry.api.common.AttributeKey;
import io.opentelemetry.api.trace.Span;
import io.opentelemetry.api.trace.SpanKind;
import io.opentelemetry.api.trace.StatusCode;
import io.opentelemetry.api.trace.Tracer;
import io.opentelemetry.context.Context;
import io.orderflow.contracts.MessagingAttributes;
import io.orderflow.contracts.Traceparent;
import io.orderflow.outbox.OutboxRow;

/**
 * The OpenTelemetry span of publishing one outbox row: {@code publish <topic>}, a {@link SpanKind#PRODUCER} span whose
 * parent is the trace context stored with the row (the order-service request that wrote it). The record carries the
 * span's own context in its {@code traceparent} header, so consumers' spans hang beneath the publish, which hangs
 * beneath the request. A row stored without trace context starts a trace.
 *
 * <p>The span runs from the send to the broker's answer; it ends in error when the record is refused or left
 * unacknowledged (it is then sent again, in a new span). With the SDK disabled spans are no-ops and the record
 * carries the row's stored {@code traceparent} unchanged. Attribute names follow OpenTelemetry's messaging
 * conventions. Thread-safe.
 */
public final class PublishSpans {

    static final AttributeKey<Long> OUTBOX_ID = AttributeKey.longKey("orderflow.outbox.id");

    private final Tracer tracer;
    private final String topic;

    public PublishSpans(OpenTelemetry openTelemetry, String topic) {
        this.tracer = openTelemetry.getTracer("io.orderflow.relay");
        this.topic = topic;
    }

    /** Starts the span of publishing {@code row}; {@link #end} ends it. */
    Span start(OutboxRow row) {
        return tracer.spanBuilder("publish " + topic)
                .setParent(Context.root()
                        .with(Span.wrap(Traceparent.toSpanContext(row.entry().traceparent()))))
                .setSpanKind(SpanKind.PRODUCER)
                .setAttribute(MessagingAttributes.SYSTEM, "kafka")
                .setAttribute(MessagingAttributes.OPERATION, "send")
                .setAttribute(MessagingAttributes.DESTINATION, topic)
                .setAttribute(MessagingAttributes.KEY, row.entry().aggregateId())
                .setAttribute(
                        MessagingAttributes.MESSAGE_ID, row.entry().eventId().toString())
                .setAttribute(MessagingAttributes.EVENT_TYPE, row.entry().eventType())
                .setAttribute(OUTBOX_ID, row.id())
                .startSpan();
    }

    /** What the record's {@code traceparent} header says: the span's context, or the row's when no span records. */
    static String traceparent(Span span, OutboxRow row) {
        String own = Traceparent.of(span.getSpanContext());
        return own != null ? own : row.entry().traceparent();
    }

    /** Ends {@code span} with what became of its row. */
    static void end(Span span, Delivery delivery) {
        switch (delivery) {
            case Delivery.Acknowledged acknowledged -> {}
            case Delivery.Refused refused -> span.setStatus(StatusCode.ERROR, refused.reason());
            case Delivery.Pending pending -> span.setStatus(StatusCode.ERROR, "not acknowledged; it is sent again");
        }
        span.end();
    }
}
