package io.orderflow.broker.handler;

import java.util.ArrayList;
import java.util.List;
import org.apache.kafka.common.acl.AclOperation;
import org.apache.kafka.common.message.FindCoordinatorResponseData;
import org.apache.kafka.common.message.FindCoordinatorResponseData.Coordinator;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.requests.AbstractResponse;
import org.apache.kafka.common.requests.FindCoordinatorRequest;
import org.apache.kafka.common.requests.FindCoordinatorResponse;
import org.apache.kafka.common.resource.ResourceType;

/**
 * FindCoordinator: this single node coordinates every group and every transactional id. Share groups (key
 * type 2) have no coordinator here, and unknown key types are invalid: INVALID_REQUEST, as Kafka answers
 * without a share coordinator. v4+ looks up a batch of keys.
 *
 * <p>Authorisation, as Kafka's: DESCRIBE on the group (else GROUP_AUTHORIZATION_FAILED) or on the transactional
 * id (else TRANSACTIONAL_ID_AUTHORIZATION_FAILED) that is the key; from v4 for each key, before v4 for the answer.
 */
public final class FindCoordinatorHandler implements ApiHandler<FindCoordinatorRequest> {
    private static final byte GROUP = FindCoordinatorRequest.CoordinatorType.GROUP.id();
    private static final byte TRANSACTION = FindCoordinatorRequest.CoordinatorType.TRANSACTION.id();

    private final BrokerNode node;
    private final Permissions permissions;

    /** Everything allowed, for tests. */
    public FindCoordinatorHandler(BrokerNode node) {
        this(node, Permissions.allowAll());
    }

    public FindCoordinatorHandler(BrokerNode node, Permissions permissions) {
        this.node = node;
        this.permissions = permissions;
    }

    @Override
    public AbstractResponse handle(ClientInfo client, FindCoordinatorRequest request) {
        byte keyType = request.data().keyType();
        Errors keyTypeError = keyType == GROUP || keyType == TRANSACTION ? Errors.NONE : Errors.INVALID_REQUEST;
        if (request.version() < FindCoordinatorRequest.MIN_BATCHED_VERSION) {
            if (keyTypeError != Errors.NONE) {
                return request.getErrorResponse(
                        keyTypeError.exception("coordinator key type " + keyType + " is not served"));
            }
            Errors refusal = refusal(client, keyType, request.data().key());
            if (refusal != Errors.NONE) {
                return request.getErrorResponse(refusal.exception());
            }
            return new FindCoordinatorResponse(new FindCoordinatorResponseData()
                    .setNodeId(node.nodeId())
                    .setHost(node.endpointFor(client).host())
                    .setPort(node.endpointFor(client).port()));
        }
        List<Coordinator> coordinators = new ArrayList<>();
        for (String key : request.data().coordinatorKeys()) {
            Errors error = keyTypeError != Errors.NONE ? keyTypeError : refusal(client, keyType, key);
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

    /** NONE when the client may describe the group or transactional id {@code key}, else the error to answer. */
    private Errors refusal(ClientInfo client, byte keyType, String key) {
        if (keyType == GROUP) {
            return permissions.allowsGroup(client, AclOperation.DESCRIBE, key)
                    ? Errors.NONE
                    : Errors.GROUP_AUTHORIZATION_FAILED;
        }
        return permissions.allows(client, AclOperation.DESCRIBE, ResourceType.TRANSACTIONAL_ID, key)
                ? Errors.NONE
                : Errors.TRANSACTIONAL_ID_AUTHORIZATION_FAILED;
    }
}
