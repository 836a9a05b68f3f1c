package io.orderflow.broker.handler;

import io.orderflow.broker.group.BoundedWait;
import io.orderflow.broker.group.GroupCoordinator;
import org.apache.kafka.common.acl.AclOperation;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.requests.AbstractResponse;
import org.apache.kafka.common.requests.HeartbeatRequest;
import org.apache.kafka.common.requests.HeartbeatResponse;

/**
 * Heartbeat: keeps a member's session; REBALANCE_IN_PROGRESS tells it to rejoin. Needs READ on the group, else
 * GROUP_AUTHORIZATION_FAILED.
 */
public final class HeartbeatHandler implements ApiHandler<HeartbeatRequest> {
    private final GroupCoordinator coordinator;
    private final Permissions permissions;

    /** Everything allowed, for tests. */
    public HeartbeatHandler(GroupCoordinator coordinator) {
        this(coordinator, Permissions.allowAll());
    }

    public HeartbeatHandler(GroupCoordinator coordinator, Permissions permissions) {
        this.coordinator = coordinator;
        this.permissions = permissions;
    }

    @Override
    public AbstractResponse handle(ClientInfo client, HeartbeatRequest request) {
        if (!permissions.allowsGroup(client, AclOperation.READ, request.data().groupId())) {
            return request.getErrorResponse(Errors.GROUP_AUTHORIZATION_FAILED.exception());
        }
        return BoundedWait.await(
                        coordinator.heartbeat(request.data()),
                        coordinator.config().offsetCommitTimeoutMs())
                .<AbstractResponse>map(HeartbeatResponse::new)
                .orElseGet(() -> request.getErrorResponse(Errors.COORDINATOR_NOT_AVAILABLE.exception()));
    }
}
