package io.orderflow.broker.handler;

import io.orderflow.broker.log.LogDirectory;
import io.orderflow.broker.log.LogException;
import java.util.HashSet;
import java.util.Set;
import org.apache.kafka.common.acl.AclOperation;
import org.apache.kafka.common.errors.ApiException;
import org.apache.kafka.common.errors.InvalidReplicaAssignmentException;
import org.apache.kafka.common.errors.InvalidRequestException;
import org.apache.kafka.common.errors.TopicAuthorizationException;
import org.apache.kafka.common.message.CreatePartitionsRequestData;
import org.apache.kafka.common.message.CreatePartitionsRequestData.CreatePartitionsTopic;
import org.apache.kafka.common.message.CreatePartitionsResponseData;
import org.apache.kafka.common.message.CreatePartitionsResponseData.CreatePartitionsTopicResult;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.requests.AbstractResponse;
import org.apache.kafka.common.requests.CreatePartitionsRequest;
import org.apache.kafka.common.requests.CreatePartitionsResponse;

/**
 * CreatePartitions: grows a topic to the requested partition count; the new partitions are empty and
 * writable as soon as the answer is sent. A count not larger than the current one is {@code INVALID_PARTITIONS}
 * (Kafka never shrinks a topic); explicit replica assignments are {@code INVALID_REPLICA_ASSIGNMENT}, since a
 * single node places every replica itself; a topic named twice is {@code INVALID_REQUEST}. With
 * {@code validateOnly} the same checks run and nothing changes. Needs ALTER on the topic, checked before its
 * existence: else TOPIC_AUTHORIZATION_FAILED.
 */
public final class CreatePartitionsHandler implements ApiHandler<CreatePartitionsRequest> {
    private final LogDirectory logs;
    private final Permissions permissions;

    public CreatePartitionsHandler(LogDirectory logs, Permissions permissions) {
        this.logs = logs;
        this.permissions = permissions;
    }

    @Override
    public AbstractResponse handle(ClientInfo client, CreatePartitionsRequest request) {
        CreatePartitionsRequestData data = request.data();
        CreatePartitionsResponseData response = new CreatePartitionsResponseData();
        Set<String> seen = new HashSet<>();
        for (CreatePartitionsTopic requested : data.topics()) {
            CreatePartitionsTopicResult result = new CreatePartitionsTopicResult()
                    .setName(requested.name())
                    .setErrorCode(Errors.NONE.code())
                    .setErrorMessage(null);
            try {
                if (!seen.add(requested.name())) {
                    throw new InvalidRequestException("Topic " + requested.name() + " is named twice in one request");
                }
                if (!permissions.allowsTopic(client, AclOperation.ALTER, requested.name())) {
                    throw new TopicAuthorizationException("Not authorized to alter topic " + requested.name());
                }
                if (requested.assignments() != null && !requested.assignments().isEmpty()) {
                    throw new InvalidReplicaAssignmentException("Replica assignments for topic " + requested.name()
                            + " are not supported by a single-node broker; leave them out");
                }
                if (data.validateOnly()) {
                    logs.checkAddPartitions(requested.name(), requested.count());
                } else {
                    logs.addPartitions(requested.name(), requested.count());
                }
            } catch (LogException | ApiException e) {
                result.setErrorCode(ErrorTable.errorFor(e).code()).setErrorMessage(e.getMessage());
            }
            response.results().add(result);
        }
        return new CreatePartitionsResponse(response);
    }
}
