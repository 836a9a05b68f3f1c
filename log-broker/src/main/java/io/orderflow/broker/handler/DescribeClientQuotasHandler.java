package io.orderflow.broker.handler;

import java.util.List;
import org.apache.kafka.common.acl.AclOperation;
import org.apache.kafka.common.message.DescribeClientQuotasResponseData;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.requests.AbstractResponse;
import org.apache.kafka.common.requests.DescribeClientQuotasRequest;
import org.apache.kafka.common.requests.DescribeClientQuotasResponse;

/**
 * DescribeClientQuotas: this broker sets no client quotas, so every filter matches nothing and the answer is an empty
 * list, which is true. {@code kafka-configs --describe --entity-type users} asks it before it describes a user's SCRAM
 * credentials, and would otherwise stop there. Needs DESCRIBE_CONFIGS on the cluster, as in Kafka.
 */
public final class DescribeClientQuotasHandler implements ApiHandler<DescribeClientQuotasRequest> {
    private final Permissions permissions;

    public DescribeClientQuotasHandler(Permissions permissions) {
        this.permissions = permissions;
    }

    @Override
    public AbstractResponse handle(ClientInfo client, DescribeClientQuotasRequest request) {
        DescribeClientQuotasResponseData data = new DescribeClientQuotasResponseData();
        if (!permissions.allowsCluster(client, AclOperation.DESCRIBE_CONFIGS)) {
            return new DescribeClientQuotasResponse(data.setErrorCode(Errors.CLUSTER_AUTHORIZATION_FAILED.code())
                    .setErrorMessage(Errors.CLUSTER_AUTHORIZATION_FAILED.message())
                    .setEntries(null));
        }
        return new DescribeClientQuotasResponse(
                data.setErrorCode(Errors.NONE.code()).setEntries(List.of()));
    }
}
