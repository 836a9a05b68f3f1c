package io.orderflow.broker.handler;

import java.util.HashSet;
import java.util.Set;
import org.apache.kafka.common.acl.AclOperation;
import org.apache.kafka.common.message.DescribeClusterRequestData;
import org.apache.kafka.common.message.DescribeClusterResponseData;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.requests.AbstractResponse;
import org.apache.kafka.common.requests.DescribeClusterRequest;
import org.apache.kafka.common.requests.DescribeClusterResponse;
import org.apache.kafka.common.utils.Utils;

/**
 * DescribeCluster: the cluster is this one node, which is also its controller and is never fenced. The node
 * answers as a broker endpoint: a request for the controllers' endpoints (endpoint type 2, what
 * {@code bootstrap.controllers} clients send) is {@code MISMATCHED_ENDPOINT_TYPE}, as a Kafka broker answers,
 * because this node does not serve the KRaft controller APIs. There is no authorizer, so a client that asks for
 * its authorized operations is told it may do everything Kafka allows on a cluster.
 */
public final class DescribeClusterHandler implements ApiHandler<DescribeClusterRequest> {
    private static final byte BROKER_ENDPOINTS = 1;

    /** What Kafka permits on the cluster resource, all granted for want of an authorizer. */
    private static final int CLUSTER_OPERATIONS = bitField(Set.of(
            AclOperation.ALTER,
            AclOperation.ALTER_CONFIGS,
            AclOperation.CLUSTER_ACTION,
            AclOperation.CREATE,
            AclOperation.DESCRIBE,
            AclOperation.DESCRIBE_CONFIGS,
            AclOperation.IDEMPOTENT_WRITE));

    private final BrokerNode node;

    public DescribeClusterHandler(BrokerNode node) {
        this.node = node;
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
                        data.includeClusterAuthorizedOperations() ? CLUSTER_OPERATIONS : Integer.MIN_VALUE);
        response.brokers()
                .add(new DescribeClusterResponseData.DescribeClusterBroker()
                        .setBrokerId(node.nodeId())
                        .setHost(node.endpointFor(client).host())
                        .setPort(node.endpointFor(client).port())
                        .setRack(null)
                        .setIsFenced(false));
        return new DescribeClusterResponse(response);
    }

    private static int bitField(Set<AclOperation> operations) {
        Set<Byte> codes = new HashSet<>();
        operations.forEach(op -> codes.add(op.code()));
        return Utils.to32BitField(codes);
    }
}
