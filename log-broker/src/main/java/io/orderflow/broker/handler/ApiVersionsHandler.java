package io.orderflow.broker.handler;

import java.util.function.Supplier;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.requests.AbstractResponse;
import org.apache.kafka.common.requests.ApiVersionsRequest;

/** ApiVersions: exactly the dispatcher's table of APIs and version ranges. */
public final class ApiVersionsHandler implements ApiHandler<ApiVersionsRequest> {
    private final Supplier<RequestDispatcher> dispatcher;

    /** A supplier, because the dispatcher is built from the handlers, this one included. */
    public ApiVersionsHandler(Supplier<RequestDispatcher> dispatcher) {
        this.dispatcher = dispatcher;
    }

    @Override
    public AbstractResponse handle(ClientInfo client, ApiVersionsRequest request) {
        if (request.version() >= 3 && !request.isValid()) {
            return request.getErrorResponse(Errors.INVALID_REQUEST.exception(
                    "client software name and version must be non-empty and made of [a-zA-Z0-9.-]"));
        }
        return dispatcher.get().apiVersions(Errors.NONE);
    }
}
