package io.orderflow.broker.handler;

import io.orderflow.broker.security.Authorizer;
import java.util.Collection;
import java.util.HashSet;
import java.util.Set;
import org.apache.kafka.common.acl.AclOperation;
import org.apache.kafka.common.config.ConfigResource;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.resource.ResourceType;
import org.apache.kafka.common.utils.Utils;

/**
 * The handlers' view of the {@link Authorizer}: may this request's client do this? Each handler asks for the
 * operations Kafka's own authorizer checks for its API, and answers the protocol's {@code *_AUTHORIZATION_FAILED}
 * code where the answer is no.
 */
public final class Permissions {
    /** The cluster resource's one name. */
    public static final String CLUSTER = "kafka-cluster";

    private static final Permissions ALLOW_ALL = new Permissions(null);

    private final Authorizer authorizer;

    public Permissions(Authorizer authorizer) {
        this.authorizer = authorizer;
    }

    /** Everything allowed: for brokers without an authorizer, and tests of other concerns. */
    public static Permissions allowAll() {
        return ALLOW_ALL;
    }

    public boolean allows(ClientInfo client, AclOperation operation, ResourceType type, String name) {
        return authorizer == null
                || authorizer.authorize(client.principal(), client.session().clientAddress(), operation, type, name);
    }

    /**
     * Whether the client may perform {@code operation} on at least one resource of {@code type} (see {@link
     * Authorizer#authorizeAny}).
     */
    public boolean allowsAny(ClientInfo client, AclOperation operation, ResourceType type) {
        return authorizer == null
                || authorizer.authorizeAny(client.principal(), client.session().clientAddress(), operation, type);
    }

    /**
     * The {@code supported} operations the client may perform on the resource, as the bit field of their codes
     * that responses' {@code authorized_operations} fields carry.
     */
    public int authorizedOperations(
            ClientInfo client, ResourceType type, String name, Collection<AclOperation> supported) {
        Set<Byte> codes = new HashSet<>();
        for (AclOperation operation : supported) {
            if (allows(client, operation, type, name)) {
                codes.add(operation.code());
            }
        }
        return Utils.to32BitField(codes);
    }

    /**
     * Kafka's check of a config resource for DescribeConfigs ({@code DESCRIBE_CONFIGS}) and the AlterConfigs APIs
     * ({@code ALTER_CONFIGS}): a topic's on the topic, a group's on the group, the others' (broker, broker logger,
     * client metrics) on the cluster.
     *
     * @return NONE when allowed (and for a resource type Kafka does not know), else the error to answer for the
     *     resource
     */
    public Errors configResourceRefusal(
            ClientInfo client, AclOperation operation, byte resourceType, String resourceName) {
        return switch (ConfigResource.Type.forId(resourceType)) {
            case TOPIC ->
                allowsTopic(client, operation, resourceName) ? Errors.NONE : Errors.TOPIC_AUTHORIZATION_FAILED;
            case GROUP ->
                allowsGroup(client, operation, resourceName) ? Errors.NONE : Errors.GROUP_AUTHORIZATION_FAILED;
            case BROKER, BROKER_LOGGER, CLIENT_METRICS ->
                allowsCluster(client, operation) ? Errors.NONE : Errors.CLUSTER_AUTHORIZATION_FAILED;
            default -> Errors.NONE;
        };
    }

    public boolean allowsTopic(ClientInfo client, AclOperation operation, String topic) {
        return allows(client, operation, ResourceType.TOPIC, topic);
    }

    public boolean allowsGroup(ClientInfo client, AclOperation operation, String group) {
        return allows(client, operation, ResourceType.GROUP, group);
    }

    public boolean allowsCluster(ClientInfo client, AclOperation operation) {
        return allows(client, operation, ResourceType.CLUSTER, CLUSTER);
    }
}
