package io.orderflow.broker.handler;

import io.orderflow.broker.log.LogConfig;
import io.orderflow.broker.log.LogDirectory;
import io.orderflow.broker.log.LogException;
import io.orderflow.broker.log.Topic;
import io.orderflow.broker.log.TopicException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.apache.kafka.common.acl.AclOperation;
import org.apache.kafka.common.config.ConfigResource;
import org.apache.kafka.common.errors.ApiException;
import org.apache.kafka.common.errors.InvalidRequestException;
import org.apache.kafka.common.message.DescribeConfigsRequestData;
import org.apache.kafka.common.message.DescribeConfigsResponseData;
import org.apache.kafka.common.message.DescribeConfigsResponseData.DescribeConfigsResourceResult;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.requests.AbstractResponse;
import org.apache.kafka.common.requests.DescribeConfigsRequest;
import org.apache.kafka.common.requests.DescribeConfigsResponse;

/**
 * DescribeConfigs for topics and for this broker, with sources, synonyms and documentation as Kafka gives
 * them (see {@link TopicConfigCatalog}).
 *
 * <ul>
 *   <li>{@code TOPIC}: every topic configuration we support, with its effective value; overrides are
 *       {@code TOPIC_CONFIG}, the rest come from the broker's defaults.
 *   <li>{@code BROKER} with this broker's id: the broker's topic defaults under Kafka's broker setting names
 *       ({@code log.retention.ms}, {@code log.segment.bytes}, ...), all read-only, since this broker has no
 *       dynamic configuration. {@code kafka-configs --describe --entity-type brokers} therefore lists no
 *       dynamic configs, and with {@code --all} lists these. {@code BROKER} with an empty name (the cluster-wide
 *       dynamic defaults) is empty. Other broker ids are {@code INVALID_REQUEST}, as in Kafka.
 *   <li>Other resource types ({@code BROKER_LOGGER}, {@code GROUP}, {@code CLIENT_METRICS}) are
 *       {@code INVALID_REQUEST}, naming the type.
 * </ul>
 *
 * Requested keys we do not know are left out, as Kafka does; a null or empty key list means all.
 *
 * <p>Authorisation, as Kafka's, before anything else about the resource: DESCRIBE_CONFIGS on the topic (else
 * TOPIC_AUTHORIZATION_FAILED) or, for a broker, on the cluster (else CLUSTER_AUTHORIZATION_FAILED); the types
 * refused as INVALID_REQUEST are checked as Kafka checks them first (see {@link
 * Permissions#configResourceRefusal}).
 */
public final class DescribeConfigsHandler implements ApiHandler<DescribeConfigsRequest> {
    private final BrokerNode node;
    private final LogDirectory logs;
    private final Permissions permissions;

    /** Everything allowed, for tests. */
    public DescribeConfigsHandler(BrokerNode node, LogDirectory logs) {
        this(node, logs, Permissions.allowAll());
    }

    public DescribeConfigsHandler(BrokerNode node, LogDirectory logs, Permissions permissions) {
        this.node = node;
        this.logs = logs;
        this.permissions = permissions;
    }

    @Override
    public AbstractResponse handle(ClientInfo client, DescribeConfigsRequest request) {
        DescribeConfigsRequestData data = request.data();
        DescribeConfigsResponseData response = new DescribeConfigsResponseData();
        for (DescribeConfigsRequestData.DescribeConfigsResource resource : data.resources()) {
            DescribeConfigsResponseData.DescribeConfigsResult result =
                    new DescribeConfigsResponseData.DescribeConfigsResult()
                            .setResourceType(resource.resourceType())
                            .setResourceName(resource.resourceName())
                            .setErrorCode(Errors.NONE.code())
                            .setErrorMessage(null);
            response.results().add(result);
            Errors refusal = permissions.configResourceRefusal(
                    client, AclOperation.DESCRIBE_CONFIGS, resource.resourceType(), resource.resourceName());
            if (refusal != Errors.NONE) {
                result.setErrorCode(refusal.code()).setErrorMessage(refusal.message());
                continue;
            }
            try {
                List<DescribeConfigsResourceResult> configs = describe(resource, data);
                List<String> keys = resource.configurationKeys();
                if (keys != null && !keys.isEmpty()) {
                    configs.removeIf(c -> !keys.contains(c.name()));
                }
                result.setConfigs(configs);
            } catch (LogException | ApiException e) {
                result.setErrorCode(ErrorTable.errorFor(e).code()).setErrorMessage(e.getMessage());
            }
        }
        return new DescribeConfigsResponse(response);
    }

    private List<DescribeConfigsResourceResult> describe(
            DescribeConfigsRequestData.DescribeConfigsResource resource, DescribeConfigsRequestData data) {
        ConfigResource.Type type = ConfigResource.Type.forId(resource.resourceType());
        return switch (type) {
            case TOPIC -> describeTopic(resource.resourceName(), data);
            case BROKER -> describeBroker(resource.resourceName(), data);
            default ->
                throw new InvalidRequestException("Unsupported resource type " + type + " (" + resource.resourceType()
                        + ") for " + resource.resourceName() + ": this broker describes TOPIC and BROKER configs");
        };
    }

    private List<DescribeConfigsResourceResult> describeTopic(String name, DescribeConfigsRequestData data) {
        Topic.validateName(name);
        Topic topic = logs.topic(name)
                .orElseThrow(() -> new TopicException(
                        TopicException.Reason.UNKNOWN_TOPIC_OR_PARTITION, name, "Topic " + name + " does not exist"));
        LogConfig brokerDefaults = logs.defaults();
        Map<String, String> values = topic.config().toMap();
        List<DescribeConfigsResourceResult> configs = new ArrayList<>();
        for (TopicConfigCatalog.Definition definition : TopicConfigCatalog.definitions()) {
            String key = definition.key();
            configs.add(entry(
                    key,
                    values.get(key),
                    false,
                    TopicConfigCatalog.topicSynonyms(topic, key, brokerDefaults),
                    definition.documentation(),
                    definition,
                    data));
        }
        return configs;
    }

    private List<DescribeConfigsResourceResult> describeBroker(String name, DescribeConfigsRequestData data) {
        if (name == null || name.isEmpty()) {
            return new ArrayList<>(); // no dynamic cluster-wide defaults exist
        }
        if (!name.equals(Integer.toString(node.nodeId()))) {
            throw new InvalidRequestException(
                    "Unexpected broker id, expected " + node.nodeId() + " or empty string, but received " + name);
        }
        LogConfig brokerDefaults = logs.defaults();
        Map<String, String> values = brokerDefaults.toMap();
        List<DescribeConfigsResourceResult> configs = new ArrayList<>();
        for (TopicConfigCatalog.Definition definition : TopicConfigCatalog.definitions()) {
            configs.add(entry(
                    definition.brokerKey(),
                    values.get(definition.key()),
                    true,
                    TopicConfigCatalog.brokerSynonyms(definition.key(), brokerDefaults),
                    "The default " + definition.key() + " of topics that do not override it. "
                            + definition.documentation(),
                    definition,
                    data));
        }
        return configs;
    }

    private static DescribeConfigsResourceResult entry(
            String name,
            String value,
            boolean readOnly,
            List<TopicConfigCatalog.Synonym> synonyms,
            String documentation,
            TopicConfigCatalog.Definition definition,
            DescribeConfigsRequestData data) {
        DescribeConfigsResourceResult entry = new DescribeConfigsResourceResult()
                .setName(name)
                .setValue(value)
                .setReadOnly(readOnly)
                .setIsSensitive(false)
                .setConfigSource(synonyms.getFirst().source().id())
                .setConfigType(definition.type().id())
                .setDocumentation(data.includeDocumentation() ? documentation : null);
        if (data.includeSynonyms()) {
            for (TopicConfigCatalog.Synonym s : synonyms) {
                entry.synonyms()
                        .add(new DescribeConfigsResponseData.DescribeConfigsSynonym()
                                .setName(s.name())
                                .setValue(s.value())
                                .setSource(s.source().id()));
            }
        }
        return entry;
    }
}
