package io.orderflow.broker.handler;

import io.orderflow.broker.group.BoundedWait;
import io.orderflow.broker.group.GroupCoordinator;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.requests.AbstractResponse;
import org.apache.kafka.common.requests.HeartbeatRequest;
import org.apache.kafka.common.requests.HeartbeatResponse;

/** Heartbeat: keeps a member's session; REBALANCE_IN_PROGRESS tells it to rejoin. */
public final class HeartbeatHandler implements ApiHandler<HeartbeatRequest> {
    private final GroupCoordinator coordinator;

    public HeartbeatHandler(GroupCoordinator coordinator) {
        this.coordinator = coordinator;
    }

    @Override
    public AbstractResponse handle(ClientInfo client, HeartbeatRequest request) {
        return BoundedWait.await(
                        coordinator.heartbeat(request.data()),
                        coordinator.config().offsetCommitTimeoutMs())
                .<AbstractResponse>map(HeartbeatResponse::new)
                .orElseGet(() -> request.getErrorResponse(Errors.COORDINATOR_NOT_AVAILABLE.exception()));
    }
}
