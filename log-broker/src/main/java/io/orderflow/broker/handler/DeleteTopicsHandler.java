package io.orderflow.broker.handler;

import io.orderflow.broker.log.LogDirectory;
import io.orderflow.broker.log.LogException;
import io.orderflow.broker.log.Topic;
import io.orderflow.broker.log.TopicException;
import java.util.HashSet;
import java.util.Optional;
import java.util.Set;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.acl.AclOperation;
import org.apache.kafka.common.errors.ApiException;
import org.apache.kafka.common.errors.InvalidRequestException;
import org.apache.kafka.common.errors.TopicAuthorizationException;
import org.apache.kafka.common.message.DeleteTopicsRequestData.DeleteTopicState;
import org.apache.kafka.common.message.DeleteTopicsResponseData;
import org.apache.kafka.common.message.DeleteTopicsResponseData.DeletableTopicResult;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.requests.AbstractResponse;
import org.apache.kafka.common.requests.DeleteTopicsRequest;
import org.apache.kafka.common.requests.DeleteTopicsResponse;

/**
 * DeleteTopics, by name or (v6+) by topic id: the topic's data is gone when the answer is sent, so the name can
 * be re-created at once, under a new topic id. Each topic names exactly one of name and id; both, neither or a
 * topic named twice in one request is {@code INVALID_REQUEST}, as in Kafka. An unknown name is
 * {@code UNKNOWN_TOPIC_OR_PARTITION}, an unknown id {@code UNKNOWN_TOPIC_ID}. A deletion by id deletes that topic
 * only, never a namesake created meanwhile.
 *
 * <p>Authorisation, as Kafka's: DELETE on the topic, else TOPIC_AUTHORIZATION_FAILED (by name: whether or not it
 * exists). A topic deleted by a known id is named in the answer only with DESCRIBE on it; ids are not secret.
 */
public final class DeleteTopicsHandler implements ApiHandler<DeleteTopicsRequest> {
    private final LogDirectory logs;
    private final Permissions permissions;

    /** Everything allowed, for tests. */
    public DeleteTopicsHandler(LogDirectory logs) {
        this(logs, Permissions.allowAll());
    }

    public DeleteTopicsHandler(LogDirectory logs, Permissions permissions) {
        this.logs = logs;
        this.permissions = permissions;
    }

    @Override
    public AbstractResponse handle(ClientInfo client, DeleteTopicsRequest request) {
        DeleteTopicsResponseData response = new DeleteTopicsResponseData();
        Set<String> names = new HashSet<>();
        Set<Uuid> ids = new HashSet<>();
        for (DeleteTopicState requested : request.topics()) {
            String name = requested.name();
            Uuid id = requested.topicId() == null ? Uuid.ZERO_UUID : requested.topicId();
            DeletableTopicResult result = new DeletableTopicResult()
                    .setName(name)
                    .setTopicId(id)
                    .setErrorCode(Errors.NONE.code())
                    .setErrorMessage(null);
            try {
                boolean byId = !id.equals(Uuid.ZERO_UUID);
                if (byId == (name != null)) {
                    throw new InvalidRequestException("Give either a topic name or a topic id, not "
                            + (byId ? "both" : "neither") + " (name " + name + ", id " + id + ")");
                }
                if (byId ? !ids.add(id) : !names.add(name)) {
                    throw new InvalidRequestException("Topic " + (byId ? id : name) + " is named twice in one request");
                }
                if (byId) {
                    Optional<Topic> known = logs.topic(BrokerNode.ourId(id));
                    if (known.isPresent()) {
                        authorizeById(client, known.get().name(), result);
                    }
                } else if (!permissions.allowsTopic(client, AclOperation.DELETE, name)) {
                    throw new TopicAuthorizationException("Not authorized to delete topic " + name);
                }
                Topic deleted = byId ? deleteById(id) : logs.deleteTopic(name);
                result.setName(deleted.name()).setTopicId(BrokerNode.kafkaId(deleted.id()));
            } catch (LogException | ApiException e) {
                result.setErrorCode(ErrorTable.errorFor(e).code()).setErrorMessage(e.getMessage());
            }
            response.responses().add(result);
        }
        return new DeleteTopicsResponse(response);
    }

    /**
     * For a topic named by its id: TOPIC_AUTHORIZATION_FAILED without naming it unless the client may describe
     * it, and naming it unless it may also delete it, as Kafka answers.
     */
    private void authorizeById(ClientInfo client, String name, DeletableTopicResult result) {
        if (!permissions.allowsTopic(client, AclOperation.DESCRIBE, name)) {
            throw new TopicAuthorizationException("Not authorized to describe the topic of id " + result.topicId());
        }
        if (!permissions.allowsTopic(client, AclOperation.DELETE, name)) {
            result.setName(name);
            throw new TopicAuthorizationException("Not authorized to delete topic " + name);
        }
    }

    private Topic deleteById(Uuid id) {
        if (logs.topic(BrokerNode.ourId(id)).isEmpty()) {
            throw new TopicException(TopicException.Reason.UNKNOWN_TOPIC_ID, null, "No topic has the id " + id);
        }
        return logs.deleteTopic(BrokerNode.ourId(id));
    }
}
