package io.orderflow.broker.handler;

import io.orderflow.broker.protocol.MalformedRequestException;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.Errors;

/**
 * A request that was to be answered with an error, but whose error answer cannot be built from its body: kafka-clients
 * builds error answers from the request, and its builders do not take every body its reader accepts
 * (DescribeUserScramCredentials with {@code users} null, which means "every user", fails with a
 * NullPointerException). The connection closes on it as on a malformed request, with one WARN line naming the API,
 * version, error and failure, and no stack trace: the request is one the broker cannot answer, not the broker's
 * own failure.
 */
public final class UnanswerableRequestException extends MalformedRequestException {
    private final ApiKeys api;
    private final short version;
    private final Errors error;

    public UnanswerableRequestException(ApiKeys api, short version, Errors error, RuntimeException cause) {
        super(
                "The " + error.name() + " answer to " + api.name + " v" + version
                        + " cannot be built from this request's body",
                cause);
        this.api = api;
        this.version = version;
        this.error = error;
    }

    public ApiKeys api() {
        return api;
    }

    public short version() {
        return version;
    }

    /** The error the request was to be answered with. */
    public Errors error() {
        return error;
    }
}
