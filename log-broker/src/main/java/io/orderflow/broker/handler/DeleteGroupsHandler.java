package io.orderflow.broker.handler;

import io.orderflow.broker.group.BoundedWait;
import io.orderflow.broker.group.GroupCoordinator;
import java.util.List;
import org.apache.kafka.common.message.DeleteGroupsResponseData;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.requests.AbstractResponse;
import org.apache.kafka.common.requests.DeleteGroupsRequest;
import org.apache.kafka.common.requests.DeleteGroupsResponse;

/** DeleteGroups: each named group, if Empty, goes with its committed offsets (NON_EMPTY_GROUP otherwise). */
public final class DeleteGroupsHandler implements ApiHandler<DeleteGroupsRequest> {
    private final GroupCoordinator coordinator;

    public DeleteGroupsHandler(GroupCoordinator coordinator) {
        this.coordinator = coordinator;
    }

    @Override
    public AbstractResponse handle(ClientInfo client, DeleteGroupsRequest request) {
        List<String> groups = request.data().groupsNames().stream().distinct().toList();
        DeleteGroupsResponseData response = new DeleteGroupsResponseData();
        BoundedWait.await(coordinator.deleteGroups(groups), coordinator.config().offsetCommitTimeoutMs())
                .ifPresentOrElse(
                        response::setResults,
                        () -> response.setResults(DeleteGroupsRequest.getErrorResultCollection(
                                groups, Errors.COORDINATOR_NOT_AVAILABLE)));
        return new DeleteGroupsResponse(response);
    }
}
