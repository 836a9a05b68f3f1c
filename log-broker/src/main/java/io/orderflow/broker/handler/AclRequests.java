package io.orderflow.broker.handler;

import io.orderflow.broker.security.AclEntry;
import io.orderflow.broker.security.AclFilter;
import io.orderflow.broker.security.KafkaPrincipal;
import org.apache.kafka.common.acl.AclOperation;
import org.apache.kafka.common.acl.AclPermissionType;
import org.apache.kafka.common.errors.InvalidRequestException;
import org.apache.kafka.common.resource.PatternType;
import org.apache.kafka.common.resource.ResourceType;

/**
 * Reads and checks the ACLs and ACL filters of CreateAcls, DescribeAcls and DeleteAcls from their wire codes,
 * refusing with {@link InvalidRequestException} (INVALID_REQUEST) what Kafka refuses: an ACL must name one
 * resource type, a LITERAL or PREFIXED pattern, one operation, ALLOW or DENY, a {@code TYPE:NAME} principal and a
 * host; a filter must not use UNKNOWN values.
 */
final class AclRequests {
    private AclRequests() {}

    static AclEntry entry(
            byte resourceType,
            String resourceName,
            byte patternType,
            String principal,
            String host,
            byte operation,
            byte permission) {
        ResourceType type = ResourceType.fromCode(resourceType);
        PatternType pattern = PatternType.fromCode(patternType);
        AclOperation op = AclOperation.fromCode(operation);
        AclPermissionType perm = AclPermissionType.fromCode(permission);
        if (type == ResourceType.ANY || type == ResourceType.UNKNOWN) {
            throw new InvalidRequestException("Invalid ACL: resource type " + type);
        }
        if (pattern != PatternType.LITERAL && pattern != PatternType.PREFIXED) {
            throw new InvalidRequestException("Invalid ACL: pattern type " + pattern + " (LITERAL or PREFIXED)");
        }
        if (op == AclOperation.ANY || op == AclOperation.UNKNOWN) {
            throw new InvalidRequestException("Invalid ACL: operation " + op);
        }
        if (perm != AclPermissionType.ALLOW && perm != AclPermissionType.DENY) {
            throw new InvalidRequestException("Invalid ACL: permission type " + perm);
        }
        if (resourceName == null || resourceName.isEmpty()) {
            throw new InvalidRequestException("Invalid ACL: empty resource name");
        }
        if (host == null || host.isEmpty()) {
            throw new InvalidRequestException("Invalid ACL: empty host (use * for any host)");
        }
        try {
            KafkaPrincipal.parse(principal);
        } catch (IllegalArgumentException e) {
            throw new InvalidRequestException("Invalid ACL: " + e.getMessage());
        }
        return new AclEntry(type, resourceName, pattern, principal, host, op, perm);
    }

    static AclFilter filter(
            byte resourceType,
            String resourceName,
            byte patternType,
            String principal,
            String host,
            byte operation,
            byte permission) {
        ResourceType type = ResourceType.fromCode(resourceType);
        PatternType pattern = PatternType.fromCode(patternType);
        AclOperation op = AclOperation.fromCode(operation);
        AclPermissionType perm = AclPermissionType.fromCode(permission);
        if (type == ResourceType.UNKNOWN
                || pattern == PatternType.UNKNOWN
                || op == AclOperation.UNKNOWN
                || perm == AclPermissionType.UNKNOWN) {
            throw new InvalidRequestException("Invalid ACL filter: UNKNOWN resource, pattern, operation or permission");
        }
        return new AclFilter(type, resourceName, pattern, principal, host, op, perm);
    }
}
