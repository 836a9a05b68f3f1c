package io.orderflow.broker.handler;

import io.orderflow.broker.security.AclEntry;
import io.orderflow.broker.security.AclFilter;
import io.orderflow.broker.security.Authorizer;
import java.util.ArrayList;
import java.util.List;
import org.apache.kafka.common.acl.AclOperation;
import org.apache.kafka.common.errors.InvalidRequestException;
import org.apache.kafka.common.message.DeleteAclsResponseData;
import org.apache.kafka.common.message.DeleteAclsResponseData.DeleteAclsFilterResult;
import org.apache.kafka.common.message.DeleteAclsResponseData.DeleteAclsMatchingAcl;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.requests.AbstractResponse;
import org.apache.kafka.common.requests.DeleteAclsRequest;
import org.apache.kafka.common.requests.DeleteAclsResponse;

/**
 * DeleteAcls ({@code kafka-acls --remove}): removes every ACL each filter matches, durably before the answer,
 * and lists them in the filter's result. Needs ALTER on the cluster; without an authorizer SECURITY_DISABLED.
 */
public final class DeleteAclsHandler implements ApiHandler<DeleteAclsRequest> {
    private final Authorizer authorizer;
    private final Permissions permissions;

    public DeleteAclsHandler(Authorizer authorizer, Permissions permissions) {
        this.authorizer = authorizer;
        this.permissions = permissions;
    }

    @Override
    public AbstractResponse handle(ClientInfo client, DeleteAclsRequest request) {
        Errors refusal = !authorizer.enabled()
                ? Errors.SECURITY_DISABLED
                : !permissions.allowsCluster(client, AclOperation.ALTER) ? Errors.CLUSTER_AUTHORIZATION_FAILED : null;
        List<DeleteAclsFilterResult> results = new ArrayList<>();
        for (var f : request.data().filters()) {
            DeleteAclsFilterResult result = new DeleteAclsFilterResult();
            if (refusal != null) {
                results.add(result.setErrorCode(refusal.code()).setErrorMessage(refusal.message()));
                continue;
            }
            AclFilter filter;
            try {
                filter = AclRequests.filter(
                        f.resourceTypeFilter(),
                        f.resourceNameFilter(),
                        f.patternTypeFilter(),
                        f.principalFilter(),
                        f.hostFilter(),
                        f.operation(),
                        f.permissionType());
            } catch (InvalidRequestException e) {
                results.add(result.setErrorCode(Errors.INVALID_REQUEST.code()).setErrorMessage(e.getMessage()));
                continue;
            }
            List<DeleteAclsMatchingAcl> matching = new ArrayList<>();
            for (AclEntry acl : authorizer.acls().remove(filter::matches)) {
                matching.add(new DeleteAclsMatchingAcl()
                        .setErrorCode(Errors.NONE.code())
                        .setResourceType(acl.resourceType().code())
                        .setResourceName(acl.resourceName())
                        .setPatternType(acl.patternType().code())
                        .setPrincipal(acl.principal())
                        .setHost(acl.host())
                        .setOperation(acl.operation().code())
                        .setPermissionType(acl.permission().code()));
            }
            results.add(result.setErrorCode(Errors.NONE.code()).setMatchingAcls(matching));
        }
        return new DeleteAclsResponse(new DeleteAclsResponseData().setFilterResults(results), request.version());
    }
}
