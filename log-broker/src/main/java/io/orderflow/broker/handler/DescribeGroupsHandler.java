package io.orderflow.broker.handler;

import io.orderflow.broker.group.BoundedWait;
import io.orderflow.broker.group.GroupCoordinator;
import java.util.Set;
import org.apache.kafka.common.acl.AclOperation;
import org.apache.kafka.common.message.DescribeGroupsResponseData;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.requests.AbstractResponse;
import org.apache.kafka.common.requests.DescribeGroupsRequest;
import org.apache.kafka.common.requests.DescribeGroupsResponse;
import org.apache.kafka.common.utils.Utils;

/**
 * DescribeGroups: state, protocol and members with their assignments, what {@code kafka-consumer-groups
 * --describe} prints. Without an authorizer every client may do everything to a group, so when asked (v3+) we
 * report the operations Kafka defines for groups: read, describe, delete.
 */
public final class DescribeGroupsHandler implements ApiHandler<DescribeGroupsRequest> {
    private static final int GROUP_OPERATIONS = Utils.to32BitField(
            Set.of(AclOperation.READ.code(), AclOperation.DESCRIBE.code(), AclOperation.DELETE.code()));

    private final GroupCoordinator coordinator;

    public DescribeGroupsHandler(GroupCoordinator coordinator) {
        this.coordinator = coordinator;
    }

    @Override
    public AbstractResponse handle(ClientInfo client, DescribeGroupsRequest request) {
        boolean withOperations = request.data().includeAuthorizedOperations();
        return BoundedWait.await(
                        coordinator.describeGroups(request.data().groups()),
                        coordinator.config().offsetCommitTimeoutMs())
                .<AbstractResponse>map(groups -> {
                    if (withOperations) {
                        groups.forEach(g -> g.setAuthorizedOperations(GROUP_OPERATIONS));
                    }
                    return new DescribeGroupsResponse(new DescribeGroupsResponseData().setGroups(groups));
                })
                .orElseGet(() -> request.getErrorResponse(Errors.COORDINATOR_NOT_AVAILABLE.exception()));
    }
}
