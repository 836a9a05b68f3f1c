package io.orderflow.broker.security;

import org.apache.kafka.common.acl.AclOperation;
import org.apache.kafka.common.acl.AclPermissionType;
import org.apache.kafka.common.resource.PatternType;
import org.apache.kafka.common.resource.ResourceType;

/**
 * A filter of DescribeAcls and DeleteAcls, with Kafka's meaning: {@code ANY} (and null for the strings) matches
 * everything; pattern type {@code MATCH} with a name selects every ACL that would apply to a resource of that
 * name (literal equal, literal {@code *}, or a prefix of it), {@code ANY} with a name the ACLs of exactly that
 * name of any pattern type.
 */
public record AclFilter(
        ResourceType resourceType,
        String resourceName,
        PatternType patternType,
        String principal,
        String host,
        AclOperation operation,
        AclPermissionType permission) {

    public boolean matches(AclEntry acl) {
        return (resourceType == ResourceType.ANY || resourceType == acl.resourceType())
                && resourceMatches(acl)
                && (principal == null || principal.equals(acl.principal()))
                && (host == null || host.equals(acl.host()))
                && (operation == AclOperation.ANY || operation == acl.operation())
                && (permission == AclPermissionType.ANY || permission == acl.permission());
    }

    private boolean resourceMatches(AclEntry acl) {
        if (resourceName == null) {
            return patternType == PatternType.ANY
                    || patternType == PatternType.MATCH
                    || patternType == acl.patternType();
        }
        return switch (patternType) {
            case LITERAL, PREFIXED -> patternType == acl.patternType() && resourceName.equals(acl.resourceName());
            case ANY -> resourceName.equals(acl.resourceName());
            case MATCH ->
                switch (acl.patternType()) {
                    case LITERAL ->
                        acl.resourceName().equals(resourceName)
                                || acl.resourceName().equals("*");
                    case PREFIXED -> resourceName.startsWith(acl.resourceName());
                    default -> false;
                };
            default -> false;
        };
    }
}
