package io.orderflow.broker.handler;

import io.orderflow.broker.group.BoundedWait;
import io.orderflow.broker.group.GroupCoordinator;
import org.apache.kafka.common.acl.AclOperation;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.requests.AbstractResponse;
import org.apache.kafka.common.requests.LeaveGroupRequest;
import org.apache.kafka.common.requests.LeaveGroupResponse;

/**
 * LeaveGroup: one member (v0-v2) or a batch, possibly by {@code group.instance.id} alone (administrative
 * removal). The response codec folds member errors into the top-level error for v0-v2. Needs READ on the group,
 * else GROUP_AUTHORIZATION_FAILED (the top-level error, for every version).
 */
public final class LeaveGroupHandler implements ApiHandler<LeaveGroupRequest> {
    private final GroupCoordinator coordinator;
    private final Permissions permissions;

    /** Everything allowed, for tests. */
    public LeaveGroupHandler(GroupCoordinator coordinator) {
        this(coordinator, Permissions.allowAll());
    }

    public LeaveGroupHandler(GroupCoordinator coordinator, Permissions permissions) {
        this.coordinator = coordinator;
        this.permissions = permissions;
    }

    @Override
    public AbstractResponse handle(ClientInfo client, LeaveGroupRequest request) {
        if (!permissions.allowsGroup(client, AclOperation.READ, request.data().groupId())) {
            return request.getErrorResponse(Errors.GROUP_AUTHORIZATION_FAILED.exception());
        }
        return BoundedWait.await(
                        coordinator.leaveGroup(request.normalizedData()),
                        coordinator.config().offsetCommitTimeoutMs())
                .<AbstractResponse>map(r -> new LeaveGroupResponse(r, request.version()))
                .orElseGet(() -> request.getErrorResponse(Errors.COORDINATOR_NOT_AVAILABLE.exception()));
    }
}
