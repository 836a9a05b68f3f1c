package io.orderflow.broker.handler;

import io.orderflow.broker.protocol.DecodedRequest;
import org.apache.kafka.common.errors.ApiException;
import org.apache.kafka.common.network.Send;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.requests.AbstractResponse;

/**
 * Error answers: a request's answer when it is answered with an error code instead of by its handler (the handler
 * failed, or its answer could not be encoded). The answer is kafka-clients' {@code getErrorResponse} of the request,
 * which fills in the error for every item the request names, at the request's version.
 *
 * <p>kafka-clients builds it from the request body, and its builders do not take every body its reader accepts: a
 * null where one expects a list (DescribeUserScramCredentials' {@code users}) throws a NullPointerException. Here
 * every failure to build or encode an error answer, whatever the API, becomes one {@link
 * UnanswerableRequestException}, on which the connection closes with one WARN line; nothing else escapes. (Requests
 * for APIs and versions the broker does not advertise never get here: see {@link UnadvertisedRequestException}.)
 * Stateless.
 */
final class ErrorAnswers {
    private ErrorAnswers() {}

    /**
     * The request's answer carrying {@code error}, or null when the protocol has no answer (a Produce with
     * {@code acks=0}).
     *
     * @throws UnanswerableRequestException when kafka-clients cannot build it from this body
     */
    static AbstractResponse of(DecodedRequest request, ApiException error) {
        try {
            return request.body().getErrorResponse(error);
        } catch (RuntimeException e) {
            throw unanswerable(request, error, e);
        }
    }

    /**
     * The request's answer carrying {@code error}, encoded at {@code version}; null when there is none.
     *
     * @throws UnanswerableRequestException when it cannot be built or encoded
     */
    static Send send(DecodedRequest request, ApiException error, short version) {
        AbstractResponse answer = of(request, error);
        try {
            return answer == null ? null : answer.toSend(request.header().toResponseHeader(), version);
        } catch (RuntimeException e) {
            throw unanswerable(request, error, e);
        }
    }

    private static UnanswerableRequestException unanswerable(
            DecodedRequest request, ApiException error, RuntimeException cause) {
        return new UnanswerableRequestException(
                request.header().apiKey(), request.header().apiVersion(), Errors.forException(error), cause);
    }
}
