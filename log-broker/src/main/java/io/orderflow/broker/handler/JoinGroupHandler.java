package io.orderflow.broker.handler;

import io.orderflow.broker.group.BoundedWait;
import io.orderflow.broker.group.GroupCoordinator;
import org.apache.kafka.common.acl.AclOperation;
import org.apache.kafka.common.message.JoinGroupRequestData;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.requests.AbstractResponse;
import org.apache.kafka.common.requests.JoinGroupRequest;
import org.apache.kafka.common.requests.JoinGroupResponse;

/**
 * JoinGroup: parks the connection's thread until the group's join phase completes (a rebalance may take up
 * to the rebalance timeout). If the coordinator does not answer within {@link
 * GroupCoordinator#maxParkedWaitMs} the member is told REBALANCE_IN_PROGRESS, which Kafka clients answer by
 * joining again. Needs READ on the group, else GROUP_AUTHORIZATION_FAILED.
 */
public final class JoinGroupHandler implements ApiHandler<JoinGroupRequest> {
    private final GroupCoordinator coordinator;
    private final Permissions permissions;

    /** Everything allowed, for tests. */
    public JoinGroupHandler(GroupCoordinator coordinator) {
        this(coordinator, Permissions.allowAll());
    }

    public JoinGroupHandler(GroupCoordinator coordinator, Permissions permissions) {
        this.coordinator = coordinator;
        this.permissions = permissions;
    }

    @Override
    public AbstractResponse handle(ClientInfo client, JoinGroupRequest request) {
        JoinGroupRequestData data = request.data();
        if (!permissions.allowsGroup(client, AclOperation.READ, data.groupId())) {
            return request.getErrorResponse(Errors.GROUP_AUTHORIZATION_FAILED.exception());
        }
        long limitMs = coordinator.maxParkedWaitMs(data.groupId(), data.rebalanceTimeoutMs());
        return BoundedWait.await(
                        coordinator.joinGroup(data, request.version(), clientId(client), clientHost(client)), limitMs)
                .<AbstractResponse>map(r -> new JoinGroupResponse(r, request.version()))
                .orElseGet(() -> request.getErrorResponse(Errors.REBALANCE_IN_PROGRESS.exception(
                        "no JoinGroup answer for group " + data.groupId() + " within " + limitMs + " ms")));
    }

    static String clientId(ClientInfo client) {
        return client.clientId() == null ? "" : client.clientId();
    }

    /**
     * The member's address as Kafka shows it ({@code InetAddress.toString()}, e.g. {@code /10.0.0.1}), from
     * the connection's remote socket address ({@code /10.0.0.1:53412} or {@code /[::1]:53412}).
     */
    static String clientHost(ClientInfo client) {
        String host = client.host() == null ? "" : client.host();
        int colon = host.lastIndexOf(':');
        boolean hasPort = colon > 0
                && colon < host.length() - 1
                && host.substring(colon + 1).chars().allMatch(Character::isDigit)
                && (host.indexOf(':') == colon || host.charAt(colon - 1) == ']');
        if (hasPort) {
            host = host.substring(0, colon);
        }
        host = host.replace("[", "").replace("]", "");
        return host.contains("/") ? host : "/" + host;
    }
}
