package io.orderflow.broker.handler;

import java.util.function.Supplier;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.requests.AbstractResponse;
import org.apache.kafka.common.requests.ApiVersionsRequest;

/**
 * ApiVersions: exactly the dispatcher's table of APIs and version ranges. From v5 (KIP-1242) a client may name
 * the cluster and node it means to reach; if that is not us it gets {@code REBOOTSTRAP_REQUIRED}.
 */
public final class ApiVersionsHandler implements ApiHandler<ApiVersionsRequest> {
    private final Supplier<RequestDispatcher> dispatcher;
    private final BrokerNode node;

    /** A supplier, because the dispatcher is built from the handlers, this one included. */
    public ApiVersionsHandler(Supplier<RequestDispatcher> dispatcher, BrokerNode node) {
        this.dispatcher = dispatcher;
        this.node = node;
    }

    @Override
    public AbstractResponse handle(ClientInfo client, ApiVersionsRequest request) {
        if (request.version() >= 3 && !request.isValid()) {
            return request.getErrorResponse(Errors.INVALID_REQUEST.exception(
                    "client software name and version must be non-empty and made of [a-zA-Z0-9.-]"));
        }
        var data = request.data();
        boolean otherCluster = data.clusterId() != null && !data.clusterId().equals(node.clusterId());
        boolean otherNode = data.nodeId() != -1 && data.nodeId() != node.nodeId();
        if (request.version() >= 5 && (otherCluster || otherNode)) {
            return dispatcher.get().apiVersions(Errors.REBOOTSTRAP_REQUIRED);
        }
        return dispatcher.get().apiVersions(Errors.NONE);
    }
}
