package io.orderflow.broker.handler;

import io.orderflow.broker.security.Authorizer;
import org.apache.kafka.common.acl.AclOperation;
import org.apache.kafka.common.resource.ResourceType;

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
