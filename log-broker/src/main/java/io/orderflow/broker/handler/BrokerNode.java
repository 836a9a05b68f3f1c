package io.orderflow.broker.handler;

import java.util.UUID;
import org.apache.kafka.common.Uuid;

/**
 * This broker as clients see it: node id, advertised address and cluster id. A single node is the leader of
 * every partition, the controller, and the coordinator of every group.
 */
public record BrokerNode(int nodeId, String host, int port, String clusterId) {
    /** Kafka's topic id type, from ours. */
    static Uuid kafkaId(UUID id) {
        return new Uuid(id.getMostSignificantBits(), id.getLeastSignificantBits());
    }

    static UUID ourId(Uuid id) {
        return new UUID(id.getMostSignificantBits(), id.getLeastSignificantBits());
    }
}
