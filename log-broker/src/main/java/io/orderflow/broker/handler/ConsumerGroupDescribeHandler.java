package io.orderflow.broker.handler;

import io.orderflow.broker.group.BoundedWait;
import io.orderflow.broker.group.GroupCoordinator;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import org.apache.kafka.common.acl.AclOperation;
import org.apache.kafka.common.message.ConsumerGroupDescribeResponseData;
import org.apache.kafka.common.message.ConsumerGroupDescribeResponseData.DescribedGroup;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.requests.AbstractResponse;
import org.apache.kafka.common.requests.ConsumerGroupDescribeRequest;
import org.apache.kafka.common.requests.ConsumerGroupDescribeResponse;
import org.apache.kafka.common.resource.ResourceType;

/**
 * ConsumerGroupDescribe (KIP-848): what {@code kafka-consumer-groups --describe} shows of a consumer group: state,
 * epochs, assignor, and each member's subscription, assignment and target. A classic group answers GROUP_ID_NOT_FOUND,
 * and the admin client asks DescribeGroups instead. Each group needs DESCRIBE, else GROUP_AUTHORIZATION_FAILED.
 */
public final class ConsumerGroupDescribeHandler implements ApiHandler<ConsumerGroupDescribeRequest> {
    private static final Set<AclOperation> GROUP_OPERATIONS =
            Set.of(AclOperation.READ, AclOperation.DESCRIBE, AclOperation.DELETE);

    private final GroupCoordinator coordinator;
    private final Permissions permissions;

    /** Everything allowed, for tests. */
    public ConsumerGroupDescribeHandler(GroupCoordinator coordinator) {
        this(coordinator, Permissions.allowAll());
    }

    public ConsumerGroupDescribeHandler(GroupCoordinator coordinator, Permissions permissions) {
        this.coordinator = coordinator;
        this.permissions = permissions;
    }

    @Override
    public AbstractResponse handle(ClientInfo client, ConsumerGroupDescribeRequest request) {
        boolean withOperations = request.data().includeAuthorizedOperations();
        List<String> allowed = new ArrayList<>();
        List<DescribedGroup> refused = new ArrayList<>();
        for (String groupId : request.data().groupIds()) {
            if (permissions.allowsGroup(client, AclOperation.DESCRIBE, groupId)) {
                allowed.add(groupId);
            } else {
                refused.add(new DescribedGroup()
                        .setGroupId(groupId)
                        .setErrorCode(Errors.GROUP_AUTHORIZATION_FAILED.code()));
            }
        }
        return BoundedWait.await(
                        coordinator.consumerGroupDescribe(allowed),
                        coordinator.config().offsetCommitTimeoutMs())
                .<AbstractResponse>map(groups -> {
                    if (withOperations) {
                        groups.stream()
                                .filter(g -> g.errorCode() == Errors.NONE.code())
                                .forEach(g -> g.setAuthorizedOperations(permissions.authorizedOperations(
                                        client, ResourceType.GROUP, g.groupId(), GROUP_OPERATIONS)));
                    }
                    List<DescribedGroup> all = new ArrayList<>(refused);
                    all.addAll(groups);
                    return new ConsumerGroupDescribeResponse(new ConsumerGroupDescribeResponseData().setGroups(all));
                })
                .orElseGet(() -> request.getErrorResponse(Errors.COORDINATOR_NOT_AVAILABLE.exception()));
    }
}
