package io.orderflow.broker.handler;

import java.util.Map;
import java.util.UUID;
import org.apache.kafka.common.Uuid;

/**
 * This broker as clients see it: node id, advertised addresses and cluster id. A single node is the leader of
 * every partition, the controller, and the coordinator of every group. With several listeners a client is told
 * the address of the listener it came in on, as Kafka tells it; {@code host} and {@code port} are the first
 * listener's.
 */
public record BrokerNode(int nodeId, String host, int port, String clusterId, Map<String, Endpoint> listeners) {
    /** An advertised address. */
    public record Endpoint(String host, int port) {}

    public BrokerNode {
        listeners = Map.copyOf(listeners);
    }

    /** A node with one listener. */
    public BrokerNode(int nodeId, String host, int port, String clusterId) {
        this(nodeId, host, port, clusterId, Map.of());
    }

    /** The address to give a client that came in on {@code client}'s listener. */
    public Endpoint endpointFor(ClientInfo client) {
        Endpoint endpoint = listeners.get(client.session().listener());
        return endpoint != null ? endpoint : new Endpoint(host, port);
    }

    /** Kafka's topic id type, from ours. */
    static Uuid kafkaId(UUID id) {
        return new Uuid(id.getMostSignificantBits(), id.getLeastSignificantBits());
    }

    static UUID ourId(Uuid id) {
        return new UUID(id.getMostSignificantBits(), id.getLeastSignificantBits());
    }
}
