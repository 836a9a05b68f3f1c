package io.orderflow.orders.rest;

import io.opentelemetry.api.trace.Span;
import io.orderflow.contracts.Traceparent;
import java.util.concurrent.ThreadLocalRandom;

/**
 * The W3C trace context a state change is recorded under, and so passed to the outbox row, the record header and every
 * consumer.
 *
 * <p>With tracing on, that is the context of the request's server span (Quarkus starts it, as a child of the caller's
 * {@code traceparent} header when there is one): consumers' spans then hang beneath the HTTP request. With tracing off
 * (no span is recording), it is the caller's {@code traceparent} header if it is valid ({@link Traceparent#isValid}),
 * passed on unchanged, else the start of a new trace. A malformed header is not an error (tracing must never fail a
 * request); it is replaced, as the W3C recommendation says.
 *
 * <p>New contexts have random non-zero ids and the sampled flag set, so that consumers which sample by their parent
 * record the trace.
 */
final class TraceContext {

    static final String HEADER = "traceparent";

    private TraceContext() {}

    /** The current server span's context if one is recording, else {@link #continueOrStart} of the header. */
    static String of(String header) {
        String current = Traceparent.of(Span.current().getSpanContext());
        return current != null ? current : continueOrStart(header);
    }

    static String continueOrStart(String header) {
        String candidate = header == null ? null : header.strip();
        return Traceparent.isValid(candidate) ? candidate : start();
    }

    static String start() {
        ThreadLocalRandom random = ThreadLocalRandom.current();
        long traceHigh;
        long traceLow;
        do {
            traceHigh = random.nextLong();
            traceLow = random.nextLong();
        } while (traceHigh == 0 && traceLow == 0);
        long parent;
        do {
            parent = random.nextLong();
        } while (parent == 0);
        return "00-%016x%016x-%016x-01".formatted(traceHigh, traceLow, parent);
    }
}
