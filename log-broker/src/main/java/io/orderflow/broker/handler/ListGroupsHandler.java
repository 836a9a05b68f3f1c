package io.orderflow.broker.handler;

import io.orderflow.broker.group.BoundedWait;
import io.orderflow.broker.group.GroupCoordinator;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.requests.AbstractResponse;
import org.apache.kafka.common.requests.ListGroupsRequest;
import org.apache.kafka.common.requests.ListGroupsResponse;

/** ListGroups: every group, optionally filtered by state (v4+) and type (v5+; all ours are {@code classic}). */
public final class ListGroupsHandler implements ApiHandler<ListGroupsRequest> {
    private final GroupCoordinator coordinator;

    public ListGroupsHandler(GroupCoordinator coordinator) {
        this.coordinator = coordinator;
    }

    @Override
    public AbstractResponse handle(ClientInfo client, ListGroupsRequest request) {
        return BoundedWait.await(
                        coordinator.listGroups(request.data()),
                        coordinator.config().offsetCommitTimeoutMs())
                .<AbstractResponse>map(ListGroupsResponse::new)
                .orElseGet(() -> request.getErrorResponse(Errors.COORDINATOR_NOT_AVAILABLE.exception()));
    }
}
