package io.orderflow.broker.security;

import java.util.List;
import java.util.Set;
import org.apache.kafka.common.acl.AclOperation;
import org.apache.kafka.common.acl.AclPermissionType;
import org.apache.kafka.common.resource.ResourceType;

/**
 * Decides whether a principal connecting from a host may perform an operation on a resource, as Kafka's ACL
 * authorizer decides:
 *
 * <ol>
 *   <li>With the authorizer off ({@code authorizer.class.name} empty) everything is allowed.
 *   <li>A super user ({@code super.users}) is allowed everything.
 *   <li>An ACL that denies the operation (or {@code ALL}) to the principal (or {@code User:*}) from the host (or
 *       {@code *}) on a pattern covering the resource denies it; deny wins over any allow.
 *   <li>An ACL that allows it allows it. Allowing {@code READ}, {@code WRITE}, {@code DELETE} or {@code ALTER}
 *       implies {@code DESCRIBE}; allowing {@code ALTER_CONFIGS} implies {@code DESCRIBE_CONFIGS}.
 *   <li>When no ACL at all covers the resource, {@code allow.everyone.if.no.acl.found} decides (false by
 *       default).
 * </ol>
 *
 * Thread-safe: reads the store's immutable snapshot.
 */
public final class Authorizer {
    private final boolean enabled;
    private final Set<KafkaPrincipal> superUsers;
    private final boolean allowIfNoAcl;
    private final AclStore acls;

    public Authorizer(boolean enabled, Set<KafkaPrincipal> superUsers, boolean allowIfNoAcl, AclStore acls) {
        this.enabled = enabled;
        this.superUsers = Set.copyOf(superUsers);
        this.allowIfNoAcl = allowIfNoAcl;
        this.acls = acls;
    }

    public boolean enabled() {
        return enabled;
    }

    public AclStore acls() {
        return acls;
    }

    public boolean authorize(
            KafkaPrincipal principal, String host, AclOperation operation, ResourceType type, String name) {
        if (!enabled || superUsers.contains(principal)) {
            return true;
        }
        List<AclEntry> all = acls.all();
        boolean anyCovers = false;
        boolean allowed = false;
        for (AclEntry acl : all) {
            if (!acl.covers(type, name)) {
                continue;
            }
            anyCovers = true;
            if (!acl.concerns(principal, host)) {
                continue;
            }
            if (acl.permission() == AclPermissionType.DENY
                    && (acl.operation() == operation || acl.operation() == AclOperation.ALL)) {
                return false;
            }
            if (acl.permission() == AclPermissionType.ALLOW && grants(acl.operation(), operation)) {
                allowed = true;
            }
        }
        return allowed || (!anyCovers && allowIfNoAcl);
    }

    private static boolean grants(AclOperation held, AclOperation wanted) {
        if (held == wanted || held == AclOperation.ALL) {
            return true;
        }
        return switch (wanted) {
            case DESCRIBE ->
                held == AclOperation.READ
                        || held == AclOperation.WRITE
                        || held == AclOperation.DELETE
                        || held == AclOperation.ALTER;
            case DESCRIBE_CONFIGS -> held == AclOperation.ALTER_CONFIGS;
            default -> false;
        };
    }
}
