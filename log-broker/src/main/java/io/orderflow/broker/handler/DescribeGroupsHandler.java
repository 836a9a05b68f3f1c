package io.orderflow.broker.handler;

import io.orderflow.broker.group.BoundedWait;
import io.orderflow.broker.group.GroupCoordinator;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import org.apache.kafka.common.acl.AclOperation;
import org.apache.kafka.common.message.DescribeGroupsResponseData;
import org.apache.kafka.common.message.DescribeGroupsResponseData.DescribedGroup;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.requests.AbstractResponse;
import org.apache.kafka.common.requests.DescribeGroupsRequest;
import org.apache.kafka.common.requests.DescribeGroupsResponse;
import org.apache.kafka.common.resource.ResourceType;

/**
 * DescribeGroups: state, protocol and members with their assignments, what {@code kafka-consumer-groups
 * --describe} prints. When asked (v3+) we report which of the operations Kafka defines for groups (read, describe,
 * delete) the client may perform on each. A group needs DESCRIBE, else it is answered GROUP_AUTHORIZATION_FAILED
 * alone, as Kafka does.
 */
public final class DescribeGroupsHandler implements ApiHandler<DescribeGroupsRequest> {
    /** The operations Kafka defines on a group. */
    private static final Set<AclOperation> GROUP_OPERATIONS =
            Set.of(AclOperation.READ, AclOperation.DESCRIBE, AclOperation.DELETE);

    private final GroupCoordinator coordinator;
    private final Permissions permissions;

    /** Everything allowed, for tests. */
    public DescribeGroupsHandler(GroupCoordinator coordinator) {
        this(coordinator, Permissions.allowAll());
    }

    public DescribeGroupsHandler(GroupCoordinator coordinator, Permissions permissions) {
        this.coordinator = coordinator;
        this.permissions = permissions;
    }

    @Override
    public AbstractResponse handle(ClientInfo client, DescribeGroupsRequest request) {
        boolean withOperations = request.data().includeAuthorizedOperations();
        List<String> allowed = new ArrayList<>();
        List<DescribedGroup> refused = new ArrayList<>();
        for (String groupId : request.data().groups()) {
            if (permissions.allowsGroup(client, AclOperation.DESCRIBE, groupId)) {
                allowed.add(groupId);
            } else {
                refused.add(DescribeGroupsResponse.groupError(groupId, Errors.GROUP_AUTHORIZATION_FAILED));
            }
        }
        return BoundedWait.await(
                        coordinator.describeGroups(allowed, request.version()),
                        coordinator.config().offsetCommitTimeoutMs())
                .<AbstractResponse>map(groups -> {
                    if (withOperations) {
                        groups.forEach(g -> g.setAuthorizedOperations(permissions.authorizedOperations(
                                client, ResourceType.GROUP, g.groupId(), GROUP_OPERATIONS)));
                    }
                    List<DescribedGroup> all = new ArrayList<>(refused);
                    all.addAll(groups);
                    return new DescribeGroupsResponse(new DescribeGroupsResponseData().setGroups(all));
                })
                .orElseGet(() -> request.getErrorResponse(Errors.COORDINATOR_NOT_AVAILABLE.exception()));
    }
}
