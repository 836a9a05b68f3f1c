package io.orderflow.broker.handler;

import java.util.ArrayList;
import java.util.List;
import org.apache.kafka.common.message.FindCoordinatorResponseData;
import org.apache.kafka.common.message.FindCoordinatorResponseData.Coordinator;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.requests.AbstractResponse;
import org.apache.kafka.common.requests.FindCoordinatorRequest;
import org.apache.kafka.common.requests.FindCoordinatorResponse;

/**
 * FindCoordinator: this single node coordinates every group and every transactional id. Share groups (key
 * type 2) have no coordinator here, and unknown key types are invalid: INVALID_REQUEST, as Kafka answers
 * without a share coordinator. v4+ looks up a batch of keys.
 */
public final class FindCoordinatorHandler implements ApiHandler<FindCoordinatorRequest> {
    private static final byte GROUP = FindCoordinatorRequest.CoordinatorType.GROUP.id();
    private static final byte TRANSACTION = FindCoordinatorRequest.CoordinatorType.TRANSACTION.id();

    private final BrokerNode node;

    public FindCoordinatorHandler(BrokerNode node) {
        this.node = node;
    }

    @Override
    public AbstractResponse handle(ClientInfo client, FindCoordinatorRequest request) {
        byte keyType = request.data().keyType();
        Errors error = keyType == GROUP || keyType == TRANSACTION ? Errors.NONE : Errors.INVALID_REQUEST;
        if (request.version() < FindCoordinatorRequest.MIN_BATCHED_VERSION) {
            if (error != Errors.NONE) {
                return request.getErrorResponse(error.exception("coordinator key type " + keyType + " is not served"));
            }
            return new FindCoordinatorResponse(new FindCoordinatorResponseData()
                    .setNodeId(node.nodeId())
                    .setHost(node.endpointFor(client).host())
                    .setPort(node.endpointFor(client).port()));
        }
        List<Coordinator> coordinators = new ArrayList<>();
        for (String key : request.data().coordinatorKeys()) {
            Coordinator c = new Coordinator().setKey(key).setErrorCode(error.code());
            if (error == Errors.NONE) {
                c.setNodeId(node.nodeId())
                        .setHost(node.endpointFor(client).host())
                        .setPort(node.endpointFor(client).port());
            } else {
                c.setNodeId(-1).setHost("").setPort(-1).setErrorMessage(error.message());
            }
            coordinators.add(c);
        }
        return new FindCoordinatorResponse(new FindCoordinatorResponseData().setCoordinators(coordinators));
    }
}
