package io.orderflow.broker.handler;

import org.apache.kafka.common.requests.AbstractRequest;
import org.apache.kafka.common.requests.AbstractResponse;

/**
 * A handler whose answer ends with a wait that need not hold up the connection: {@link #start} does the
 * request's work (for a Produce: every append, in order), and the returned {@link Completion} waits (for the
 * fsync) and builds the response. The connection may read and start the next pipelined request of the same API
 * while an earlier one waits; answers still leave in request order.
 *
 * <p>Only APIs whose later requests cannot observe the difference may be pipelined: a Produce appended while
 * an earlier one awaits its fsync sees the same log as if it had waited (appends are already in order, and
 * nothing it checks depends on durability). Every other request waits until all earlier ones are answered, so
 * a Fetch after a Produce still sees it.
 */
public interface PipelinedApiHandler<Q extends AbstractRequest> extends ApiHandler<Q> {
    /** The waiting half of a request: runs once, on the thread that writes the connection's answers. */
    @FunctionalInterface
    interface Completion {
        /** @return the response, or null when the protocol says there is none */
        AbstractResponse await();
    }

    /** Does the request's work now and returns what is left: waiting and answering. */
    Completion start(ClientInfo client, Q request);

    @Override
    default AbstractResponse handle(ClientInfo client, Q request) {
        return start(client, request).await();
    }
}
