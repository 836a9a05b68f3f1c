package io.orderflow.broker.handler;

import io.orderflow.broker.log.InvalidConfigException;
import io.orderflow.broker.log.LogDirectory;
import io.orderflow.broker.log.LogException;
import io.orderflow.broker.log.Topic;
import io.orderflow.broker.log.TopicException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.kafka.clients.admin.AlterConfigOp.OpType;
import org.apache.kafka.common.acl.AclOperation;
import org.apache.kafka.common.config.ConfigResource;
import org.apache.kafka.common.errors.ApiException;
import org.apache.kafka.common.errors.InvalidRequestException;
import org.apache.kafka.common.message.IncrementalAlterConfigsRequestData;
import org.apache.kafka.common.message.IncrementalAlterConfigsRequestData.AlterConfigsResource;
import org.apache.kafka.common.message.IncrementalAlterConfigsRequestData.AlterableConfig;
import org.apache.kafka.common.message.IncrementalAlterConfigsResponseData;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.requests.AbstractResponse;
import org.apache.kafka.common.requests.DescribeConfigsResponse.ConfigType;
import org.apache.kafka.common.requests.IncrementalAlterConfigsRequest;
import org.apache.kafka.common.requests.IncrementalAlterConfigsResponse;

/**
 * IncrementalAlterConfigs for topics: {@code SET} overrides a configuration, {@code DELETE} drops the override
 * so the broker's default applies again, {@code APPEND} and {@code SUBTRACT} add or remove items of a
 * list configuration ({@code cleanup.policy}, starting from its current value) and are {@code INVALID_CONFIG}
 * for any other. The resulting configuration is validated as a whole before anything changes, so a resource's
 * changes apply all or none; unknown keys and bad values are {@code INVALID_CONFIG} naming the key. Changes are
 * persisted and take effect on the topic's partitions at once ({@link LogDirectory#alterConfig}); with
 * {@code validateOnly} nothing changes.
 *
 * <p>{@code BROKER} resources are refused with {@code INVALID_CONFIG}: this broker's settings are static (its
 * configuration file), there are no dynamic broker configs. Other resource types are {@code INVALID_REQUEST}.
 *
 * <p>Authorisation, as Kafka's, before anything else about the resource: ALTER_CONFIGS on the topic (else
 * TOPIC_AUTHORIZATION_FAILED) or, for a broker, on the cluster (else CLUSTER_AUTHORIZATION_FAILED); the types
 * refused as INVALID_REQUEST are checked as Kafka checks them first (see {@link
 * Permissions#configResourceRefusal}).
 *
 * <p>Thread-safety: alterations are serialised by this handler, so an {@code APPEND} or {@code SUBTRACT}, which
 * reads the current value, never loses a concurrent alteration of the same topic.
 */
public final class IncrementalAlterConfigsHandler implements ApiHandler<IncrementalAlterConfigsRequest> {
    private final LogDirectory logs;
    private final Permissions permissions;
    private final Object alterations = new Object();

    public IncrementalAlterConfigsHandler(LogDirectory logs, Permissions permissions) {
        this.logs = logs;
        this.permissions = permissions;
    }

    @Override
    public AbstractResponse handle(ClientInfo client, IncrementalAlterConfigsRequest request) {
        IncrementalAlterConfigsRequestData data = request.data();
        IncrementalAlterConfigsResponseData response = new IncrementalAlterConfigsResponseData();
        for (AlterConfigsResource resource : data.resources()) {
            IncrementalAlterConfigsResponseData.AlterConfigsResourceResponse result =
                    new IncrementalAlterConfigsResponseData.AlterConfigsResourceResponse()
                            .setResourceType(resource.resourceType())
                            .setResourceName(resource.resourceName())
                            .setErrorCode(Errors.NONE.code())
                            .setErrorMessage(null);
            response.responses().add(result);
            Errors refusal = permissions.configResourceRefusal(
                    client, AclOperation.ALTER_CONFIGS, resource.resourceType(), resource.resourceName());
            if (refusal != Errors.NONE) {
                result.setErrorCode(refusal.code()).setErrorMessage(refusal.message());
                continue;
            }
            try {
                ConfigResource.Type type = ConfigResource.Type.forId(resource.resourceType());
                switch (type) {
                    case TOPIC -> alterTopic(resource, data.validateOnly());
                    case BROKER -> refuseBrokerChange(resource);
                    default ->
                        throw new InvalidRequestException("Unsupported resource type " + type + " ("
                                + resource.resourceType() + ") for " + resource.resourceName()
                                + ": this broker alters TOPIC configs only");
                }
            } catch (LogException | ApiException e) {
                result.setErrorCode(ErrorTable.errorFor(e).code()).setErrorMessage(e.getMessage());
            }
        }
        return new IncrementalAlterConfigsResponse(response);
    }

    private void alterTopic(AlterConfigsResource resource, boolean validateOnly) {
        String name = resource.resourceName();
        Topic.validateName(name);
        synchronized (alterations) {
            Topic topic = logs.topic(name)
                    .orElseThrow(() -> new TopicException(
                            TopicException.Reason.UNKNOWN_TOPIC_OR_PARTITION,
                            name,
                            "Topic " + name + " does not exist"));
            Map<String, String> current = topic.config().toMap();
            Map<String, String> set = new LinkedHashMap<>();
            List<String> remove = new ArrayList<>();
            Set<String> seen = new HashSet<>();
            for (AlterableConfig change : resource.configs()) {
                String key = change.name();
                if (!seen.add(key)) {
                    throw new InvalidRequestException(
                            "Configuration " + key + " of topic " + name + " is altered more than once in one request");
                }
                TopicConfigCatalog.Definition definition = TopicConfigCatalog.definition(key);
                if (definition == null) {
                    throw new InvalidConfigException(key, change.value(), "is not a topic configuration we support");
                }
                OpType op = opType(change);
                if (op != OpType.DELETE && change.value() == null) {
                    throw new InvalidRequestException(op + " of configuration " + key + " of topic " + name
                            + " needs a value, and none was given");
                }
                switch (op) {
                    case SET -> set.put(key, change.value());
                    case DELETE -> remove.add(key);
                    case APPEND, SUBTRACT -> {
                        if (definition.type() != ConfigType.LIST) {
                            throw new InvalidConfigException(
                                    key,
                                    change.value(),
                                    op + " applies to list configurations only, and " + key + " is of type "
                                            + definition.type());
                        }
                        set.put(key, applyToList(op, current.get(key), change.value()));
                    }
                }
            }
            Map<String, String> overrides = new HashMap<>(topic.overrides());
            remove.forEach(overrides::remove);
            overrides.putAll(set);
            logs.defaults().with(overrides); // throws InvalidConfigException naming the bad key
            if (!validateOnly) {
                logs.alterConfig(name, set, remove);
            }
        }
    }

    private static OpType opType(AlterableConfig change) {
        for (OpType op : OpType.values()) {
            if (op.id() == change.configOperation()) {
                return op;
            }
        }
        throw new InvalidRequestException(
                "Unknown operation " + change.configOperation() + " for configuration " + change.name());
    }

    /** {@code current} with the comma-separated {@code items} added (once each) or removed. */
    private static String applyToList(OpType op, String current, String items) {
        List<String> values = new ArrayList<>(split(current));
        for (String item : split(items)) {
            if (op == OpType.APPEND && !values.contains(item)) {
                values.add(item);
            } else if (op == OpType.SUBTRACT) {
                values.remove(item);
            }
        }
        return String.join(",", values);
    }

    private static List<String> split(String list) {
        List<String> out = new ArrayList<>();
        for (String item : list.split(",")) {
            if (!item.isBlank()) {
                out.add(item.trim());
            }
        }
        return out;
    }

    private static void refuseBrokerChange(AlterConfigsResource resource) {
        if (resource.configs().isEmpty()) {
            return;
        }
        AlterableConfig first = resource.configs().iterator().next();
        throw new InvalidConfigException(
                first.name(),
                first.value(),
                "broker " + resource.resourceName() + " has no dynamic configuration; set it in the broker's"
                        + " configuration file and restart");
    }
}
