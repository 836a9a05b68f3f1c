package io.orderflow.orders.rest;

import io.orderflow.contracts.Traceparent;
import java.util.concurrent.ThreadLocalRandom;

/**
 * The W3C trace context a state change is recorded under: the caller's {@code traceparent} header if it is valid
 * ({@link Traceparent#isValid}), else the start of a new trace. This service records no spans of its own, so it passes
 * the caller's context on unchanged: consumers' spans become children of the caller's. A malformed header is not an
 * error (tracing must never fail a request); it is replaced, as the W3C recommendation says.
 *
 * <p>New contexts have random non-zero ids and the sampled flag set, so that consumers which sample by their parent
 * record the trace.
 */
final class TraceContext {

    static final String HEADER = "traceparent";

    private TraceContext() {}

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
