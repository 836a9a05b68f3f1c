package io.orderflow.broker.handler;

import io.orderflow.broker.protocol.MalformedRequestException;
import org.apache.kafka.common.protocol.ApiKeys;

/**
 * A request the codec can read, for an API or version the broker does not advertise in ApiVersions. Apache Kafka's
 * {@code SocketServer} checks each request header against the APIs and versions it has enabled before anything
 * else, and closes the connection of a request outside them without an answer; so does the connection that catches
 * this (one WARN line, no stack trace). No error answer is built, so no body can make building one fail. ApiVersions
 * itself is never refused this way: a client sends its newest version first and gets our ranges at v0.
 */
public final class UnadvertisedRequestException extends MalformedRequestException {
    private final ApiKeys api;
    private final short version;

    /**
     * @param minVersion the oldest advertised version of {@code api}, or -1 when it is not advertised at all
     * @param maxVersion the newest, or -1
     */
    public UnadvertisedRequestException(ApiKeys api, short version, short minVersion, short maxVersion) {
        super(api.name + " v" + version + " is not advertised by this broker ("
                + (minVersion < 0 ? "the API is not served" : "it serves v" + minVersion + " to v" + maxVersion)
                + "); closing the connection, as Apache Kafka does");
        this.api = api;
        this.version = version;
    }

    public ApiKeys api() {
        return api;
    }

    public short version() {
        return version;
    }
}
