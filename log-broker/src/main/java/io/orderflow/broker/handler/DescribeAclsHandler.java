package io.orderflow.broker.handler;

import io.orderflow.broker.security.AclEntry;
import io.orderflow.broker.security.AclFilter;
import io.orderflow.broker.security.Authorizer;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.kafka.common.acl.AclOperation;
import org.apache.kafka.common.errors.InvalidRequestException;
import org.apache.kafka.common.message.DescribeAclsRequestData;
import org.apache.kafka.common.message.DescribeAclsResponseData;
import org.apache.kafka.common.message.DescribeAclsResponseData.AclDescription;
import org.apache.kafka.common.message.DescribeAclsResponseData.DescribeAclsResource;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.requests.AbstractResponse;
import org.apache.kafka.common.requests.DescribeAclsRequest;
import org.apache.kafka.common.requests.DescribeAclsResponse;
import org.apache.kafka.common.resource.PatternType;
import org.apache.kafka.common.resource.ResourceType;

/**
 * DescribeAcls ({@code kafka-acls --list}): the ACLs the filter matches (see {@link AclFilter}), grouped by
 * resource pattern. Needs DESCRIBE on the cluster; without an authorizer SECURITY_DISABLED.
 */
public final class DescribeAclsHandler implements ApiHandler<DescribeAclsRequest> {
    private final Authorizer authorizer;
    private final Permissions permissions;

    public DescribeAclsHandler(Authorizer authorizer, Permissions permissions) {
        this.authorizer = authorizer;
        this.permissions = permissions;
    }

    private record Pattern(ResourceType type, String name, PatternType patternType) {}

    @Override
    public AbstractResponse handle(ClientInfo client, DescribeAclsRequest request) {
        DescribeAclsResponseData response = new DescribeAclsResponseData();
        if (!authorizer.enabled()) {
            return refuse(response, Errors.SECURITY_DISABLED, "No authorizer is configured on the broker", request);
        }
        if (!permissions.allowsCluster(client, AclOperation.DESCRIBE)) {
            return refuse(response, Errors.CLUSTER_AUTHORIZATION_FAILED, null, request);
        }
        DescribeAclsRequestData d = request.data();
        AclFilter filter;
        try {
            filter = AclRequests.filter(
                    d.resourceTypeFilter(),
                    d.resourceNameFilter(),
                    d.patternTypeFilter(),
                    d.principalFilter(),
                    d.hostFilter(),
                    d.operation(),
                    d.permissionType());
        } catch (InvalidRequestException e) {
            return refuse(response, Errors.INVALID_REQUEST, e.getMessage(), request);
        }
        Map<Pattern, List<AclDescription>> byPattern = new LinkedHashMap<>();
        for (AclEntry acl : authorizer.acls().all()) {
            if (filter.matches(acl)) {
                byPattern
                        .computeIfAbsent(
                                new Pattern(acl.resourceType(), acl.resourceName(), acl.patternType()),
                                p -> new ArrayList<>())
                        .add(new AclDescription()
                                .setPrincipal(acl.principal())
                                .setHost(acl.host())
                                .setOperation(acl.operation().code())
                                .setPermissionType(acl.permission().code()));
            }
        }
        byPattern.forEach((p, acls) -> response.resources()
                .add(new DescribeAclsResource()
                        .setResourceType(p.type().code())
                        .setResourceName(p.name())
                        .setPatternType(p.patternType().code())
                        .setAcls(acls)));
        return new DescribeAclsResponse(response.setErrorCode(Errors.NONE.code()), request.version());
    }

    private static DescribeAclsResponse refuse(
            DescribeAclsResponseData response, Errors error, String message, DescribeAclsRequest request) {
        return new DescribeAclsResponse(
                response.setErrorCode(error.code()).setErrorMessage(message != null ? message : error.message()),
                request.version());
    }
}
