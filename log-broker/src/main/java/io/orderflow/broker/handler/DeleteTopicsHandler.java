package io.orderflow.broker.handler;

import io.orderflow.broker.log.LogDirectory;
import io.orderflow.broker.log.LogException;
import io.orderflow.broker.log.Topic;
import io.orderflow.broker.log.TopicException;
import java.util.HashSet;
import java.util.Set;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.errors.ApiException;
import org.apache.kafka.common.errors.InvalidRequestException;
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
 */
public final class DeleteTopicsHandler implements ApiHandler<DeleteTopicsRequest> {
    private final LogDirectory logs;

    public DeleteTopicsHandler(LogDirectory logs) {
        this.logs = logs;
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
                Topic deleted = byId ? deleteById(id) : logs.deleteTopic(name);
                result.setName(deleted.name()).setTopicId(BrokerNode.kafkaId(deleted.id()));
            } catch (LogException | ApiException e) {
                result.setErrorCode(ErrorTable.errorFor(e).code()).setErrorMessage(e.getMessage());
            }
            response.responses().add(result);
        }
        return new DeleteTopicsResponse(response);
    }

    private Topic deleteById(Uuid id) {
        if (logs.topic(BrokerNode.ourId(id)).isEmpty()) {
            throw new TopicException(TopicException.Reason.UNKNOWN_TOPIC_ID, null, "No topic has the id " + id);
        }
        return logs.deleteTopic(BrokerNode.ourId(id));
    }
}
