package io.orderflow.broker.security;

import org.apache.kafka.common.acl.AclOperation;
import org.apache.kafka.common.acl.AclPermissionType;
import org.apache.kafka.common.resource.PatternType;
import org.apache.kafka.common.resource.ResourceType;

/**
 * One ACL as Kafka models it: who ({@code principal}, {@code User:*} for everyone), from where ({@code host},
 * {@code *} for anywhere), may or may not ({@code permission}) do what ({@code operation}, {@code ALL} for
 * everything) to which resources (a type, and a name matched {@code LITERAL}ly, {@code *} for all, or as a
 * {@code PREFIXED} prefix).
 */
public record AclEntry(
        ResourceType resourceType,
        String resourceName,
        PatternType patternType,
        String principal,
        String host,
        AclOperation operation,
        AclPermissionType permission) {

    /** Whether this ACL's resource pattern covers the resource {@code type}/{@code name}. */
    public boolean covers(ResourceType type, String name) {
        if (resourceType != type) {
            return false;
        }
        return switch (patternType) {
            case LITERAL -> resourceName.equals(name) || resourceName.equals("*");
            case PREFIXED -> name.startsWith(resourceName);
            default -> false;
        };
    }

    /** Whether this ACL speaks of {@code who} connecting from {@code from}. */
    public boolean concerns(KafkaPrincipal who, String from) {
        boolean principalMatches = principal.equals(who.toString()) || principal.equals(KafkaPrincipal.USER + ":*");
        return principalMatches && (host.equals("*") || host.equals(from));
    }
}
