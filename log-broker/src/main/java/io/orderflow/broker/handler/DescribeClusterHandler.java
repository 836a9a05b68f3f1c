package io.orderflow.broker.handler;

import java.util.Set;
import org.apache.kafka.common.acl.AclOperation;
import org.apache.kafka.common.message.DescribeClusterRequestData;
import org.apache.kafka.common.message.DescribeClusterResponseData;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.requests.AbstractResponse;
import org.apache.kafka.common.requests.DescribeClusterRequest;
import org.apache.kafka.common.requests.DescribeClusterResponse;
import org.apache.kafka.common.resource.ResourceType;

/**
 * DescribeCluster: the cluster is this one node, which is also its controller and is never fenced. The node
 * answers as a broker endpoint: a request for the controllers' endpoints (endpoint type 2, what
 * {@code bootstrap.controllers} clients send) is {@code MISMATCHED_ENDPOINT_TYPE}, as a Kafka broker answers,
 * because this node does not serve the KRaft controller APIs. Nothing is refused for authorisation; a client
 * that asks for its authorized operations is told which of the operations Kafka defines on a cluster it may
 * perform, and none without DESCRIBE on the cluster, as Kafka answers.
 */
public final class DescribeClusterHandler implements ApiHandler<DescribeClusterRequest> {
    private static final byte BROKER_ENDPOINTS = 1;

    /** The operations Kafka defines on the cluster resource. */
    private static final Set<AclOperation> CLUSTER_OPERATIONS = Set.of(
            AclOperation.ALTER,
            AclOperation.ALTER_CONFIGS,
            AclOperation.CLUSTER_ACTION,
            AclOperation.CREATE,
            AclOperation.DESCRIBE,
            AclOperation.DESCRIBE_CONFIGS,
            AclOperation.IDEMPOTENT_WRITE);

    private final BrokerNode node;
    private final Permissions permissions;

    public DescribeClusterHandler(BrokerNode node, Permissions permissions) {
        this.node = node;
        this.permissions = permissions;
    }

    @Override
    public AbstractResponse handle(ClientInfo client, DescribeClusterRequest request) {
        DescribeClusterRequestData data = request.data();
        DescribeClusterResponseData response = new DescribeClusterResponseData()
                .setEndpointType(data.endpointType())
                .setClusterId(node.clusterId());
        if (data.endpointType() != BROKER_ENDPOINTS) {
            return new DescribeClusterResponse(response.setErrorCode(Errors.MISMATCHED_ENDPOINT_TYPE.code())
                    .setErrorMessage("This node answers as a broker (endpoint type " + BROKER_ENDPOINTS
                            + "), not as endpoint type " + data.endpointType()
                            + "; use bootstrap.servers, not bootstrap.controllers"));
        }
        response.setErrorCode(Errors.NONE.code())
                .setControllerId(node.nodeId())
                .setClusterAuthorizedOperations(
                        data.includeClusterAuthorizedOperations() ? authorizedOperations(client) : Integer.MIN_VALUE);
        response.brokers()
                .add(new DescribeClusterResponseData.DescribeClusterBroker()
                        .setBrokerId(node.nodeId())
                        .setHost(node.endpointFor(client).host())
                        .setPort(node.endpointFor(client).port())
                        .setRack(null)
                        .setIsFenced(false));
        return new DescribeClusterResponse(response);
    }

    private int authorizedOperations(ClientInfo client) {
        if (!permissions.allowsCluster(client, AclOperation.DESCRIBE)) {
            return 0;
        }
        return permissions.authorizedOperations(client, ResourceType.CLUSTER, Permissions.CLUSTER, CLUSTER_OPERATIONS);
    }
}
