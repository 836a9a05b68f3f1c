package io.orderflow.broker.handler;

import io.orderflow.broker.group.BoundedWait;
import io.orderflow.broker.group.GroupCoordinator;
import org.apache.kafka.common.acl.AclOperation;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.requests.AbstractResponse;
import org.apache.kafka.common.requests.ListGroupsRequest;
import org.apache.kafka.common.requests.ListGroupsResponse;

/**
 * ListGroups: every group, optionally filtered by state (v4+) and type (v5+; all ours are {@code classic}). As
 * Kafka does, a client with DESCRIBE on the cluster sees every group, any other only the groups it may DESCRIBE.
 */
public final class ListGroupsHandler implements ApiHandler<ListGroupsRequest> {
    private final GroupCoordinator coordinator;
    private final Permissions permissions;

    /** Everything allowed, for tests. */
    public ListGroupsHandler(GroupCoordinator coordinator) {
        this(coordinator, Permissions.allowAll());
    }

    public ListGroupsHandler(GroupCoordinator coordinator, Permissions permissions) {
        this.coordinator = coordinator;
        this.permissions = permissions;
    }

    @Override
    public AbstractResponse handle(ClientInfo client, ListGroupsRequest request) {
        boolean seesAll = permissions.allowsCluster(client, AclOperation.DESCRIBE);
        return BoundedWait.await(
                        coordinator.listGroups(request.data()),
                        coordinator.config().offsetCommitTimeoutMs())
                .<AbstractResponse>map(listed -> {
                    if (!seesAll) {
                        listed.groups()
                                .removeIf(g -> !permissions.allowsGroup(client, AclOperation.DESCRIBE, g.groupId()));
                    }
                    return new ListGroupsResponse(listed);
                })
                .orElseGet(() -> request.getErrorResponse(Errors.COORDINATOR_NOT_AVAILABLE.exception()));
    }
}
