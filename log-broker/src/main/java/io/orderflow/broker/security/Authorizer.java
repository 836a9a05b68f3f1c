package io.orderflow.broker.security;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.apache.kafka.common.acl.AclOperation;
import org.apache.kafka.common.acl.AclPermissionType;
import org.apache.kafka.common.resource.PatternType;
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

    /**
     * Whether {@code principal} from {@code host} may perform {@code operation} on at least one resource of
     * {@code type}, whichever it is, as Kafka's {@code Authorizer.authorizeByResourceType} decides (InitProducerId
     * without a transactional id asks it for WRITE on some topic):
     *
     * <ol>
     *   <li>Allowed with the authorizer off, to a super user, and whenever {@link #authorize} allows the operation
     *       on a resource named {@code hardcode}, the name Kafka checks (so {@code allow.everyone.if.no.acl.found}
     *       counts as there).
     *   <li>Otherwise only the ACLs of that type for the operation (or {@code ALL}) concerning the principal and
     *       host count: a DENY on the literal {@code *} denies; an ALLOW on the literal {@code *} allows; any other
     *       ALLOW allows unless a DENY covers everything it names (a literal DENY of the same literal name, or a
     *       prefixed DENY whose prefix starts it).
     * </ol>
     */
    public boolean authorizeAny(KafkaPrincipal principal, String host, AclOperation operation, ResourceType type) {
        if (authorize(principal, host, operation, type, "hardcode")) {
            return true;
        }
        Set<String> deniedLiterals = new HashSet<>();
        Set<String> deniedPrefixes = new HashSet<>();
        List<AclEntry> allowed = new ArrayList<>();
        boolean wildcardAllowed = false;
        for (AclEntry acl : acls.all()) {
            if (acl.resourceType() != type
                    || !acl.concerns(principal, host)
                    || (acl.operation() != operation && acl.operation() != AclOperation.ALL)) {
                continue;
            }
            boolean literal = acl.patternType() == PatternType.LITERAL;
            boolean wildcard = literal && acl.resourceName().equals("*");
            if (acl.permission() == AclPermissionType.DENY) {
                if (wildcard) {
                    return false;
                }
                if (literal) {
                    deniedLiterals.add(acl.resourceName());
                } else if (acl.patternType() == PatternType.PREFIXED) {
                    deniedPrefixes.add(acl.resourceName());
                }
            } else if (acl.permission() == AclPermissionType.ALLOW) {
                if (wildcard) {
                    wildcardAllowed = true;
                } else if (literal || acl.patternType() == PatternType.PREFIXED) {
                    allowed.add(acl);
                }
            }
        }
        if (wildcardAllowed) {
            return true;
        }
        for (AclEntry acl : allowed) {
            String name = acl.resourceName();
            if (acl.patternType() == PatternType.LITERAL && deniedLiterals.contains(name)) {
                continue;
            }
            boolean dominated = false;
            for (int end = 1; end <= name.length() && !dominated; end++) {
                dominated = deniedPrefixes.contains(name.substring(0, end));
            }
            if (!dominated) {
                return true;
            }
        }
        return false;
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
