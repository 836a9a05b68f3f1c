package io.orderflow.broker.handler;

import io.orderflow.broker.security.AclEntry;
import io.orderflow.broker.security.Authorizer;
import java.util.ArrayList;
import java.util.List;
import org.apache.kafka.common.acl.AclOperation;
import org.apache.kafka.common.errors.InvalidRequestException;
import org.apache.kafka.common.message.CreateAclsResponseData;
import org.apache.kafka.common.message.CreateAclsResponseData.AclCreationResult;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.requests.AbstractResponse;
import org.apache.kafka.common.requests.CreateAclsRequest;
import org.apache.kafka.common.requests.CreateAclsResponse;

/**
 * CreateAcls ({@code kafka-acls --add}): each valid ACL is stored durably before the answer; an invalid one is
 * INVALID_REQUEST on its own result. Needs ALTER on the cluster; without an authorizer every result is
 * SECURITY_DISABLED, as Kafka answers.
 */
public final class CreateAclsHandler implements ApiHandler<CreateAclsRequest> {
    private final Authorizer authorizer;
    private final Permissions permissions;

    public CreateAclsHandler(Authorizer authorizer, Permissions permissions) {
        this.authorizer = authorizer;
        this.permissions = permissions;
    }

    @Override
    public AbstractResponse handle(ClientInfo client, CreateAclsRequest request) {
        var creations = request.data().creations();
        List<AclCreationResult> results = new ArrayList<>();
        Errors refusal = !authorizer.enabled()
                ? Errors.SECURITY_DISABLED
                : !permissions.allowsCluster(client, AclOperation.ALTER) ? Errors.CLUSTER_AUTHORIZATION_FAILED : null;
        List<AclEntry> valid = new ArrayList<>();
        for (var c : creations) {
            AclCreationResult result = new AclCreationResult();
            if (refusal != null) {
                result.setErrorCode(refusal.code()).setErrorMessage(refusal.message());
            } else {
                try {
                    valid.add(AclRequests.entry(
                            c.resourceType(),
                            c.resourceName(),
                            c.resourcePatternType(),
                            c.principal(),
                            c.host(),
                            c.operation(),
                            c.permissionType()));
                    result.setErrorCode(Errors.NONE.code());
                } catch (InvalidRequestException e) {
                    result.setErrorCode(Errors.INVALID_REQUEST.code()).setErrorMessage(e.getMessage());
                }
            }
            results.add(result);
        }
        if (!valid.isEmpty()) {
            authorizer.acls().add(valid);
        }
        return new CreateAclsResponse(new CreateAclsResponseData().setResults(results));
    }
}
