package io.orderflow.broker.handler;

import io.orderflow.broker.group.BoundedWait;
import io.orderflow.broker.group.GroupCoordinator;
import org.apache.kafka.common.acl.AclOperation;
import org.apache.kafka.common.message.ConsumerGroupHeartbeatRequestData;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.requests.AbstractResponse;
import org.apache.kafka.common.requests.ConsumerGroupHeartbeatRequest;
import org.apache.kafka.common.requests.ConsumerGroupHeartbeatResponse;

/**
 * ConsumerGroupHeartbeat (KIP-848, {@code group.protocol=consumer}): a member's join, heartbeat, reconciliation step
 * and leave, all in one request. Needs READ on the group, else GROUP_AUTHORIZATION_FAILED, and DESCRIBE on every topic
 * it subscribes to by name, else TOPIC_AUTHORIZATION_FAILED, as in Kafka.
 */
public final class ConsumerGroupHeartbeatHandler implements ApiHandler<ConsumerGroupHeartbeatRequest> {
    private final GroupCoordinator coordinator;
    private final Permissions permissions;

    /** Everything allowed, for tests. */
    public ConsumerGroupHeartbeatHandler(GroupCoordinator coordinator) {
        this(coordinator, Permissions.allowAll());
    }

    public ConsumerGroupHeartbeatHandler(GroupCoordinator coordinator, Permissions permissions) {
        this.coordinator = coordinator;
        this.permissions = permissions;
    }

    @Override
    public AbstractResponse handle(ClientInfo client, ConsumerGroupHeartbeatRequest request) {
        ConsumerGroupHeartbeatRequestData data = request.data();
        if (!permissions.allowsGroup(client, AclOperation.READ, data.groupId())) {
            return request.getErrorResponse(Errors.GROUP_AUTHORIZATION_FAILED.exception());
        }
        if (data.subscribedTopicNames() != null) {
            for (String topic : data.subscribedTopicNames()) {
                if (!permissions.allowsTopic(client, AclOperation.DESCRIBE, topic)) {
                    return request.getErrorResponse(Errors.TOPIC_AUTHORIZATION_FAILED.exception(
                            "Not authorized to describe topic " + topic + "."));
                }
            }
        }
        return BoundedWait.await(
                        coordinator.consumerGroupHeartbeat(
                                data,
                                request.version(),
                                JoinGroupHandler.clientId(client),
                                JoinGroupHandler.clientHost(client)),
                        coordinator.config().offsetCommitTimeoutMs())
                .<AbstractResponse>map(ConsumerGroupHeartbeatResponse::new)
                .orElseGet(() -> request.getErrorResponse(Errors.COORDINATOR_NOT_AVAILABLE.exception()));
    }
}
