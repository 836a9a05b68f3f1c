package io.orderflow.broker.handler;

import io.orderflow.broker.log.LogDirectory;
import io.orderflow.broker.log.Topic;
import io.orderflow.broker.log.TopicException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.acl.AclOperation;
import org.apache.kafka.common.errors.InvalidRequestException;
import org.apache.kafka.common.message.MetadataRequestData;
import org.apache.kafka.common.message.MetadataResponseData;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.requests.AbstractResponse;
import org.apache.kafka.common.requests.MetadataRequest;
import org.apache.kafka.common.requests.MetadataResponse;

/**
 * Metadata: this node is the only broker, the controller and the leader (epoch 0) of every partition.
 * Unknown topics are created when the request allows it and {@code auto.create.topics.enable} is on, with
 * {@code num.partitions} partitions, as Kafka does.
 *
 * <p>Topics asked for by id (v12 on) that do not exist get {@code UNKNOWN_TOPIC_ID} and a null name. A v10 or v11
 * request that names a topic by id or leaves a name null is refused with {@code INVALID_REQUEST} for each topic,
 * named "" with its id, exactly as Apache Kafka refuses it (those versions' answers cannot hold a null name).
 *
 * <p>Authorisation, as Kafka's: a topic needs DESCRIBE. A request for all topics leaves out those without it; a
 * topic asked for by name without it is TOPIC_AUTHORIZATION_FAILED whether or not it exists (by id, once the id is
 * known: ids are not secret, so the answer keeps the id and has no name). A missing topic is created only with
 * CREATE on the cluster or on the topic; without either it is TOPIC_AUTHORIZATION_FAILED, as Kafka answers.
 */
public final class MetadataHandler implements ApiHandler<MetadataRequest> {
    /** v10 and v11 carry topic ids, but only v12 may ask by them (its answer's topic name is nullable). */
    private static final short FIRST_VERSION_BY_TOPIC_ID = 12;

    private final BrokerNode node;
    private final LogDirectory logs;
    private final boolean autoCreateTopics;
    private final int defaultPartitions;
    private final Permissions permissions;

    public MetadataHandler(
            BrokerNode node,
            LogDirectory logs,
            boolean autoCreateTopics,
            int defaultPartitions,
            Permissions permissions) {
        this.node = node;
        this.logs = logs;
        this.autoCreateTopics = autoCreateTopics;
        this.defaultPartitions = defaultPartitions;
        this.permissions = permissions;
    }

    @Override
    public AbstractResponse handle(ClientInfo client, MetadataRequest request) {
        MetadataRequestData data = request.data();
        if (request.version() < FIRST_VERSION_BY_TOPIC_ID && data.topics() != null) {
            for (MetadataRequestData.MetadataRequestTopic topic : data.topics()) {
                if (topic.name() == null) {
                    return request.getErrorResponse(
                            new InvalidRequestException("Topic name can not be null for version " + request.version()));
                }
                if (!Uuid.ZERO_UUID.equals(topic.topicId())) {
                    return request.getErrorResponse(new InvalidRequestException(
                            "Topic IDs are not supported in requests for version " + request.version()));
                }
            }
        }
        MetadataResponseData response =
                new MetadataResponseData().setClusterId(node.clusterId()).setControllerId(node.nodeId());
        response.brokers()
                .add(new MetadataResponseData.MetadataResponseBroker()
                        .setNodeId(node.nodeId())
                        .setHost(node.endpointFor(client).host())
                        .setPort(node.endpointFor(client).port()));
        if (data.topics() == null) {
            logs.topics().stream()
                    .filter(t -> permissions.allowsTopic(client, AclOperation.DESCRIBE, t.name()))
                    .forEach(t -> response.topics().add(describe(t)));
        } else {
            for (MetadataRequestData.MetadataRequestTopic requested : data.topics()) {
                response.topics().add(lookUp(client, requested, data.allowAutoTopicCreation()));
            }
        }
        return new MetadataResponse(response, request.version());
    }

    private MetadataResponseData.MetadataResponseTopic lookUp(
            ClientInfo client, MetadataRequestData.MetadataRequestTopic requested, boolean allowAutoCreate) {
        String name = requested.name();
        Uuid id = requested.topicId();
        if (name != null && !permissions.allowsTopic(client, AclOperation.DESCRIBE, name)) {
            return error(name, id, Errors.TOPIC_AUTHORIZATION_FAILED);
        }
        Optional<Topic> topic = name != null
                ? logs.topic(name)
                : (id == null || id.equals(Uuid.ZERO_UUID) ? Optional.empty() : logs.topic(BrokerNode.ourId(id)));
        if (name == null
                && topic.isPresent()
                && !permissions.allowsTopic(
                        client, AclOperation.DESCRIBE, topic.get().name())) {
            return error(null, id, Errors.TOPIC_AUTHORIZATION_FAILED);
        }
        if (topic.isEmpty() && name != null && allowAutoCreate && autoCreateTopics) {
            if (!permissions.allowsCluster(client, AclOperation.CREATE)
                    && !permissions.allowsTopic(client, AclOperation.CREATE, name)) {
                return error(name, Uuid.ZERO_UUID, Errors.TOPIC_AUTHORIZATION_FAILED);
            }
            try {
                topic = Optional.of(logs.createTopic(name, defaultPartitions, Map.of()));
            } catch (TopicException e) {
                if (e.reason() != TopicException.Reason.ALREADY_EXISTS) {
                    return error(name, id, ErrorTable.errorFor(e));
                }
                topic = logs.topic(name); // another request created it meanwhile
            }
        }
        if (topic.isEmpty()) {
            return error(name, id, name == null ? Errors.UNKNOWN_TOPIC_ID : Errors.UNKNOWN_TOPIC_OR_PARTITION);
        }
        return describe(topic.get());
    }

    private MetadataResponseData.MetadataResponseTopic describe(Topic topic) {
        List<MetadataResponseData.MetadataResponsePartition> partitions = new ArrayList<>();
        for (int p = 0; p < topic.partitions(); p++) {
            partitions.add(new MetadataResponseData.MetadataResponsePartition()
                    .setPartitionIndex(p)
                    .setLeaderId(node.nodeId())
                    .setLeaderEpoch(0)
                    .setReplicaNodes(List.of(node.nodeId()))
                    .setIsrNodes(List.of(node.nodeId()))
                    .setOfflineReplicas(List.of()));
        }
        return new MetadataResponseData.MetadataResponseTopic()
                .setName(topic.name())
                .setTopicId(BrokerNode.kafkaId(topic.id()))
                .setIsInternal(false)
                .setPartitions(partitions);
    }

    private static MetadataResponseData.MetadataResponseTopic error(String name, Uuid id, Errors error) {
        return new MetadataResponseData.MetadataResponseTopic()
                .setName(name)
                .setTopicId(id == null ? Uuid.ZERO_UUID : id)
                .setErrorCode(error.code());
    }
}
