package io.orderflow.broker.handler;

import org.apache.kafka.common.requests.AbstractRequest;
import org.apache.kafka.common.requests.AbstractResponse;

/**
 * Answers one Kafka API: decodes nothing and encodes nothing itself (the protocol layer did and will), just
 * turns a request into a response by calling the coordinator or the storage. One implementation per API key.
 *
 * <p>Runs on the connection's own thread, so it may block, e.g. a Fetch waiting for data or a
 * Produce waiting for its fsync; requests of one connection are answered in order, as Kafka does.
 */
@FunctionalInterface
public interface ApiHandler<Q extends AbstractRequest> {
    /**
     * @return the response, or null when the protocol says there is none (a Produce with {@code acks=0})
     */
    AbstractResponse handle(ClientInfo client, Q request);
}
