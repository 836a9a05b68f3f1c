package io.orderflow.broker.handler;

import io.orderflow.broker.group.BoundedWait;
import io.orderflow.broker.group.GroupCoordinator;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;
import org.apache.kafka.common.acl.AclOperation;
import org.apache.kafka.common.message.DeleteGroupsResponseData;
import org.apache.kafka.common.message.DeleteGroupsResponseData.DeletableGroupResult;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.requests.AbstractResponse;
import org.apache.kafka.common.requests.DeleteGroupsRequest;
import org.apache.kafka.common.requests.DeleteGroupsResponse;

/**
 * DeleteGroups: each named group, if Empty, goes with its committed offsets (NON_EMPTY_GROUP otherwise). A group
 * needs DELETE, else it is answered GROUP_AUTHORIZATION_FAILED, as Kafka does.
 */
public final class DeleteGroupsHandler implements ApiHandler<DeleteGroupsRequest> {
    private final GroupCoordinator coordinator;
    private final Permissions permissions;

    /** Everything allowed, for tests. */
    public DeleteGroupsHandler(GroupCoordinator coordinator) {
        this(coordinator, Permissions.allowAll());
    }

    public DeleteGroupsHandler(GroupCoordinator coordinator, Permissions permissions) {
        this.coordinator = coordinator;
        this.permissions = permissions;
    }

    @Override
    public AbstractResponse handle(ClientInfo client, DeleteGroupsRequest request) {
        Map<Boolean, List<String>> byPermission = request.data().groupsNames().stream()
                .distinct()
                .collect(Collectors.partitioningBy(g -> permissions.allowsGroup(client, AclOperation.DELETE, g)));
        List<String> groups = byPermission.get(true);
        DeleteGroupsResponseData response = new DeleteGroupsResponseData();
        BoundedWait.await(coordinator.deleteGroups(groups), coordinator.config().offsetCommitTimeoutMs())
                .ifPresentOrElse(
                        response::setResults,
                        () -> response.setResults(DeleteGroupsRequest.getErrorResultCollection(
                                groups, Errors.COORDINATOR_NOT_AVAILABLE)));
        for (String refused : byPermission.get(false)) {
            response.results()
                    .add(new DeletableGroupResult()
                            .setGroupId(refused)
                            .setErrorCode(Errors.GROUP_AUTHORIZATION_FAILED.code()));
        }
        return new DeleteGroupsResponse(response);
    }
}
