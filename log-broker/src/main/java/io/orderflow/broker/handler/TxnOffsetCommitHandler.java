package io.orderflow.broker.handler;

import io.orderflow.broker.group.BoundedWait;
import io.orderflow.broker.group.GroupCoordinator;
import io.orderflow.broker.log.LogDirectory;
import io.orderflow.broker.log.Topic;
import io.orderflow.broker.txn.TransactionCoordinator;
import java.util.Optional;
import org.apache.kafka.common.acl.AclOperation;
import org.apache.kafka.common.message.TxnOffsetCommitRequestData;
import org.apache.kafka.common.message.TxnOffsetCommitRequestData.TxnOffsetCommitRequestPartition;
import org.apache.kafka.common.message.TxnOffsetCommitRequestData.TxnOffsetCommitRequestTopic;
import org.apache.kafka.common.message.TxnOffsetCommitResponseData;
import org.apache.kafka.common.message.TxnOffsetCommitResponseData.TxnOffsetCommitResponsePartition;
import org.apache.kafka.common.message.TxnOffsetCommitResponseData.TxnOffsetCommitResponseTopic;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.requests.AbstractResponse;
import org.apache.kafka.common.requests.TxnOffsetCommitRequest;
import org.apache.kafka.common.requests.TxnOffsetCommitResponse;
import org.apache.kafka.common.resource.ResourceType;

/**
 * TxnOffsetCommit (versions 0 to 4, topics by name): a transactional producer commits a group's offsets inside its
 * transaction (KIP-98; from v3 with the consumer's generation and member id, KIP-447). The transaction coordinator
 * first checks that the producer's transaction is open with the group's offsets added; the group coordinator then
 * checks the member and writes the offsets as the producer's transactional records, which count once it commits.
 *
 * <p>Authorisation, as Kafka's: WRITE on the transactional id, READ on the group, then READ on each topic (else
 * TOPIC_AUTHORIZATION_FAILED for its partitions); a topic that does not exist is UNKNOWN_TOPIC_OR_PARTITION.
 */
public final class TxnOffsetCommitHandler implements ApiHandler<TxnOffsetCommitRequest> {
    private final TransactionCoordinator transactions;
    private final GroupCoordinator groups;
    private final LogDirectory logs;
    private final Permissions permissions;

    public TxnOffsetCommitHandler(
            TransactionCoordinator transactions, GroupCoordinator groups, LogDirectory logs, Permissions permissions) {
        this.transactions = transactions;
        this.groups = groups;
        this.logs = logs;
        this.permissions = permissions;
    }

    @Override
    public AbstractResponse handle(ClientInfo client, TxnOffsetCommitRequest request) {
        TxnOffsetCommitRequestData data = request.data();
        if (!permissions.allows(client, AclOperation.WRITE, ResourceType.TRANSACTIONAL_ID, data.transactionalId())) {
            return refuse(data, Errors.TRANSACTIONAL_ID_AUTHORIZATION_FAILED);
        }
        if (!permissions.allowsGroup(client, AclOperation.READ, data.groupId())) {
            return refuse(data, Errors.GROUP_AUTHORIZATION_FAILED);
        }
        TxnOffsetCommitResponseData answered = new TxnOffsetCommitResponseData();
        TxnOffsetCommitRequestData valid = data.duplicate().setTopics(new java.util.ArrayList<>());
        for (TxnOffsetCommitRequestTopic topic : data.topics()) {
            Errors error = null;
            Optional<Topic> found = logs.topic(topic.name());
            if (!permissions.allowsTopic(client, AclOperation.READ, topic.name())) {
                error = Errors.TOPIC_AUTHORIZATION_FAILED;
            } else if (found.isEmpty()) {
                error = Errors.UNKNOWN_TOPIC_OR_PARTITION;
            }
            if (error == null) {
                TxnOffsetCommitRequestTopic known = new TxnOffsetCommitRequestTopic().setName(topic.name());
                TxnOffsetCommitResponseTopic unknown = new TxnOffsetCommitResponseTopic().setName(topic.name());
                for (TxnOffsetCommitRequestPartition p : topic.partitions()) {
                    if (p.partitionIndex() >= 0
                            && p.partitionIndex() < found.get().partitions()) {
                        known.partitions().add(p);
                    } else {
                        unknown.partitions().add(partition(p, Errors.UNKNOWN_TOPIC_OR_PARTITION));
                    }
                }
                if (!known.partitions().isEmpty()) {
                    valid.topics().add(known);
                }
                if (!unknown.partitions().isEmpty()) {
                    answered.topics().add(unknown);
                }
                continue;
            }
            TxnOffsetCommitResponseTopic refused = new TxnOffsetCommitResponseTopic().setName(topic.name());
            for (TxnOffsetCommitRequestPartition p : topic.partitions()) {
                refused.partitions().add(partition(p, error));
            }
            answered.topics().add(refused);
        }
        if (!valid.topics().isEmpty()) {
            TxnOffsetCommitResponseData committed = transactions.commitOffsetsVerified(
                    data.transactionalId(),
                    data.producerId(),
                    data.producerEpoch(),
                    () -> BoundedWait.await(
                                    groups.commitTransactionalOffsets(valid),
                                    groups.config().offsetCommitTimeoutMs())
                            .orElseGet(() ->
                                    TxnOffsetCommitRequest.getErrorResponse(valid, Errors.COORDINATOR_NOT_AVAILABLE)),
                    error -> TxnOffsetCommitRequest.getErrorResponse(valid, error));
            answered.topics().addAll(committed.topics());
        }
        return new TxnOffsetCommitResponse(answered);
    }

    private static TxnOffsetCommitResponsePartition partition(TxnOffsetCommitRequestPartition p, Errors error) {
        return new TxnOffsetCommitResponsePartition()
                .setPartitionIndex(p.partitionIndex())
                .setErrorCode(error.code());
    }

    private static TxnOffsetCommitResponse refuse(TxnOffsetCommitRequestData data, Errors error) {
        return new TxnOffsetCommitResponse(TxnOffsetCommitRequest.getErrorResponse(data, error));
    }
}
