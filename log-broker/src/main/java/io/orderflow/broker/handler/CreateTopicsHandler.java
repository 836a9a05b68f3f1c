package io.orderflow.broker.handler;

import io.orderflow.broker.log.LogDirectory;
import io.orderflow.broker.log.LogException;
import io.orderflow.broker.log.Topic;
import io.orderflow.broker.log.TopicException;
import java.util.HashMap;
import java.util.Map;
import org.apache.kafka.common.acl.AclOperation;
import org.apache.kafka.common.errors.ApiException;
import org.apache.kafka.common.message.CreateTopicsRequestData;
import org.apache.kafka.common.message.CreateTopicsResponseData;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.requests.AbstractResponse;
import org.apache.kafka.common.requests.CreateTopicsRequest;
import org.apache.kafka.common.requests.CreateTopicsResponse;

/**
 * CreateTopics: partitions default to {@code num.partitions}, replication factor must be 1 or -1 (default),
 * explicit replica assignments are refused, configs are validated; {@code validateOnly} checks without
 * creating. The response carries the topic id, partition count and resulting configs (v5+).
 *
 * <p>Authorisation, as Kafka's: CREATE on the cluster or on the topic, else TOPIC_AUTHORIZATION_FAILED for that
 * topic; the partition count, replication factor and configs of a created topic are answered only with
 * DESCRIBE_CONFIGS on it, else its {@code topic_config_error_code} is TOPIC_AUTHORIZATION_FAILED.
 */
public final class CreateTopicsHandler implements ApiHandler<CreateTopicsRequest> {
    /** The first version whose answer carries the partition count, replication factor and configs. */
    private static final short FIRST_VERSION_WITH_CONFIGS = 5;

    private final LogDirectory logs;
    private final int defaultPartitions;
    private final Permissions permissions;

    public CreateTopicsHandler(LogDirectory logs, int defaultPartitions, Permissions permissions) {
        this.logs = logs;
        this.defaultPartitions = defaultPartitions;
        this.permissions = permissions;
    }

    @Override
    public AbstractResponse handle(ClientInfo client, CreateTopicsRequest request) {
        CreateTopicsRequestData data = request.data();
        CreateTopicsResponseData response = new CreateTopicsResponseData();
        boolean mayCreateAny = permissions.allowsCluster(client, AclOperation.CREATE);
        for (CreateTopicsRequestData.CreatableTopic t : data.topics()) {
            CreateTopicsResponseData.CreatableTopicResult result =
                    new CreateTopicsResponseData.CreatableTopicResult().setName(t.name());
            response.topics().add(result);
            if (!mayCreateAny && !permissions.allowsTopic(client, AclOperation.CREATE, t.name())) {
                result.setErrorCode(Errors.TOPIC_AUTHORIZATION_FAILED.code()).setErrorMessage("Authorization failed.");
                continue;
            }
            try {
                int partitions = t.numPartitions() == -1 ? defaultPartitions : t.numPartitions();
                if (!t.assignments().isEmpty()) {
                    throw new TopicException(
                            TopicException.Reason.INVALID_PARTITIONS,
                            t.name(),
                            "Replica assignments are not supported by a single-node broker");
                }
                if (t.replicationFactor() != -1 && t.replicationFactor() != 1) {
                    throw new TopicException(
                            TopicException.Reason.INVALID_REPLICATION_FACTOR,
                            t.name(),
                            "Replication factor " + t.replicationFactor() + " is larger than the 1 available broker");
                }
                Map<String, String> configs = new HashMap<>();
                t.configs().forEach(c -> configs.put(c.name(), c.value()));
                Topic topic;
                if (data.validateOnly()) {
                    Topic.validateName(t.name());
                    logs.defaults().with(configs);
                    if (logs.topic(t.name()).isPresent()) {
                        throw new TopicException(
                                TopicException.Reason.ALREADY_EXISTS,
                                t.name(),
                                "Topic " + t.name() + " already exists");
                    }
                    logs.checkPartitionLimit(t.name(), partitions);
                    topic = null;
                } else {
                    topic = logs.createTopic(t.name(), partitions, configs);
                }
                result.setErrorCode(Errors.NONE.code());
                if (topic != null) {
                    result.setTopicId(BrokerNode.kafkaId(topic.id()));
                }
                if (!permissions.allowsTopic(client, AclOperation.DESCRIBE_CONFIGS, t.name())) {
                    if (request.version() >= FIRST_VERSION_WITH_CONFIGS) {
                        result.setTopicConfigErrorCode(Errors.TOPIC_AUTHORIZATION_FAILED.code());
                    }
                    continue;
                }
                result.setNumPartitions(partitions).setReplicationFactor((short) 1);
                if (topic != null) {
                    topic.config()
                            .toMap()
                            .forEach((k, v) -> result.configs()
                                    .add(new CreateTopicsResponseData.CreatableTopicConfigs()
                                            .setName(k)
                                            .setValue(v)
                                            .setReadOnly(false)
                                            .setIsSensitive(false)
                                            .setConfigSource(TopicConfigCatalog.topicSource(topic, k, logs.defaults())
                                                    .id())));
                }
            } catch (LogException | ApiException e) {
                result.setErrorCode(ErrorTable.errorFor(e).code()).setErrorMessage(e.getMessage());
            }
        }
        return new CreateTopicsResponse(response);
    }
}
