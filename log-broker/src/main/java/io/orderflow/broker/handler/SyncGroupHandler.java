package io.orderflow.broker.handler;

import io.orderflow.broker.group.BoundedWait;
import io.orderflow.broker.group.GroupCoordinator;
import org.apache.kafka.common.acl.AclOperation;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.requests.AbstractResponse;
import org.apache.kafka.common.requests.SyncGroupRequest;
import org.apache.kafka.common.requests.SyncGroupResponse;

/**
 * SyncGroup: a follower's request waits for the leader's assignment; past {@link
 * GroupCoordinator#maxParkedWaitMs} it is answered REBALANCE_IN_PROGRESS (the client rejoins). From v5 the
 * protocol type and name are required, as Kafka checks, and then READ on the group (else
 * GROUP_AUTHORIZATION_FAILED).
 */
public final class SyncGroupHandler implements ApiHandler<SyncGroupRequest> {
    private final GroupCoordinator coordinator;
    private final Permissions permissions;

    /** Everything allowed, for tests. */
    public SyncGroupHandler(GroupCoordinator coordinator) {
        this(coordinator, Permissions.allowAll());
    }

    public SyncGroupHandler(GroupCoordinator coordinator, Permissions permissions) {
        this.coordinator = coordinator;
        this.permissions = permissions;
    }

    @Override
    public AbstractResponse handle(ClientInfo client, SyncGroupRequest request) {
        if (!request.areMandatoryProtocolTypeAndNamePresent()) {
            return request.getErrorResponse(Errors.INCONSISTENT_GROUP_PROTOCOL.exception(
                    "SyncGroup v" + request.version() + " must name the protocol type and protocol"));
        }
        String groupId = request.data().groupId();
        if (!permissions.allowsGroup(client, AclOperation.READ, groupId)) {
            return request.getErrorResponse(Errors.GROUP_AUTHORIZATION_FAILED.exception());
        }
        long limitMs = coordinator.maxParkedWaitMs(groupId, 0);
        return BoundedWait.await(coordinator.syncGroup(request.data()), limitMs)
                .<AbstractResponse>map(SyncGroupResponse::new)
                .orElseGet(() -> request.getErrorResponse(Errors.REBALANCE_IN_PROGRESS.exception(
                        "no SyncGroup answer for group " + groupId + " within " + limitMs + " ms")));
    }
}
