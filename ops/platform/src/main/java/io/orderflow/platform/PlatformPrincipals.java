package io.orderflow.platform;

import io.orderflow.contracts.Topics;
import java.util.ArrayList;
import java.util.List;
import org.apache.kafka.common.acl.AccessControlEntry;
import org.apache.kafka.common.acl.AclBinding;
import org.apache.kafka.common.acl.AclOperation;
import org.apache.kafka.common.acl.AclPermissionType;
import org.apache.kafka.common.resource.PatternType;
import org.apache.kafka.common.resource.ResourcePattern;
import org.apache.kafka.common.resource.ResourceType;

/**
 * Who connects to the platform's broker and what each may do: one principal per part, each with only the ACLs its
 * work needs, so that a leaked password of one part cannot forge orders, read another group's data or delete a topic.
 * The launcher creates these ACLs on every start (CreateAcls is idempotent for an existing binding).
 *
 * <table>
 *   <caption>principals and their ACLs</caption>
 *   <tr><th>principal</th><th>may</th></tr>
 *   <tr><td>{@code admin}</td><td>everything (super user): the launcher, creating topics and these ACLs</td></tr>
 *   <tr><td>{@code outbox-relay}</td><td>write {@code orders}</td></tr>
 *   <tr><td>{@code inventory-outbox-relay}</td><td>write {@code inventory}</td></tr>
 *   <tr><td>each consuming service G</td><td>read its source topic in group G ({@code orders}; order-service's saga
 *       reads {@code inventory}); create, write and read its retry topics ({@code G_retry_*}); create and write its
 *       dead-letter topic</td></tr>
 *   <tr><td>{@code lag-monitor}</td><td>describe every group and topic, and read topics for the record timestamps
 *       its time lag needs (it joins no group and commits nothing)</td></tr>
 *   <tr><td>{@code ops-load}</td><td>write {@code orders} (the load's orders at other event versions)</td></tr>
 *   <tr><td>{@code ops-drills}</td><td>read and write {@code orders} and {@code inventory} (duplicates, poison
 *       records), read the dead-letter topics</td></tr>
 *   <tr><td>{@code ops-admin}</td><td>replay and re-drive: rewind each group's offsets, read its topics, copy dead
 *       letters to its first retry topic, keep its re-drive log</td></tr>
 * </table>
 */
final class PlatformPrincipals {

    static final String ADMIN = "admin";
    /** order-service's consumer group: the saga, which reads inventory's answers. */
    static final String SAGA = "order-service";

    /** The consumer groups, each the principal of the service of its name. */
    static final List<String> CONSUMERS =
            List.of("inventory-service", "notification-service", "analytics-service", SAGA);
    /** The services that reach the broker, each the principal of its own name. */
    static final List<String> SERVICES = List.of(
            "order-service",
            "outbox-relay",
            "inventory-service",
            "inventory-outbox-relay",
            "notification-service",
            "analytics-service",
            "lag-monitor");

    static final List<String> ALL = java.util.stream.Stream.of(
                    List.of(ADMIN), SERVICES, List.of("ops-load", "ops-drills", "ops-admin"))
            .flatMap(List::stream)
            .toList();

    private PlatformPrincipals() {}

    /** Every ACL of every principal but the administrator, who is a super user. */
    static List<AclBinding> acls() {
        List<AclBinding> acls = new ArrayList<>();
        allow(acls, "outbox-relay", topic(Topics.ORDERS), AclOperation.WRITE);
        allow(acls, "inventory-outbox-relay", topic(Topics.INVENTORY), AclOperation.WRITE);
        for (String group : CONSUMERS) {
            allow(acls, group, topic(sourceTopic(group)), AclOperation.READ);
            allow(acls, group, group(group), AclOperation.READ);
            allow(
                    acls,
                    group,
                    prefixedTopic(retryPrefix(group)),
                    AclOperation.CREATE,
                    AclOperation.WRITE,
                    AclOperation.READ);
            allow(acls, group, topic(deadLetterTopic(group)), AclOperation.CREATE, AclOperation.WRITE);
        }
        allow(
                acls,
                "lag-monitor",
                new ResourcePattern(ResourceType.GROUP, "*", PatternType.LITERAL),
                AclOperation.DESCRIBE);
        allow(acls, "lag-monitor", topic("*"), AclOperation.DESCRIBE, AclOperation.READ);
        allow(acls, "ops-load", topic(Topics.ORDERS), AclOperation.WRITE);
        allow(acls, "ops-drills", topic(Topics.ORDERS), AclOperation.READ, AclOperation.WRITE);
        allow(acls, "ops-drills", topic(Topics.INVENTORY), AclOperation.READ, AclOperation.WRITE);
        for (String group : CONSUMERS) {
            allow(acls, "ops-drills", topic(deadLetterTopic(group)), AclOperation.READ);
            allow(acls, "ops-admin", group(group), AclOperation.READ, AclOperation.DESCRIBE);
            allow(acls, "ops-admin", topic(sourceTopic(group)), AclOperation.READ);
            allow(acls, "ops-admin", prefixedTopic(retryPrefix(group)), AclOperation.READ, AclOperation.WRITE);
            allow(acls, "ops-admin", topic(deadLetterTopic(group)), AclOperation.READ);
            allow(
                    acls,
                    "ops-admin",
                    topic(redriveLogTopic(group)),
                    AclOperation.CREATE,
                    AclOperation.READ,
                    AclOperation.WRITE);
        }
        return List.copyOf(acls);
    }

    /** The topic consumer group {@code group} reads: inventory's answers for the saga, {@code orders} for the rest. */
    static String sourceTopic(String group) {
        return group.equals(SAGA) ? Topics.INVENTORY : Topics.ORDERS;
    }

    /** A consuming service's retry topics' common prefix (event-consumer's {@code RetryTopics}). */
    static String retryPrefix(String group) {
        return group + "_retry_";
    }

    static String deadLetterTopic(String group) {
        return "dead-letter-topic-" + group;
    }

    static String redriveLogTopic(String group) {
        return "dead-letter-redrives-" + group;
    }

    private static void allow(
            List<AclBinding> acls, String principal, ResourcePattern resource, AclOperation... operations) {
        for (AclOperation operation : operations) {
            acls.add(new AclBinding(
                    resource, new AccessControlEntry("User:" + principal, "*", operation, AclPermissionType.ALLOW)));
        }
    }

    private static ResourcePattern topic(String name) {
        return new ResourcePattern(ResourceType.TOPIC, name, PatternType.LITERAL);
    }

    private static ResourcePattern prefixedTopic(String prefix) {
        return new ResourcePattern(ResourceType.TOPIC, prefix, PatternType.PREFIXED);
    }

    private static ResourcePattern group(String name) {
        return new ResourcePattern(ResourceType.GROUP, name, PatternType.LITERAL);
    }
}
