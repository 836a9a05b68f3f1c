package io.orderflow.broker.handler;

import io.orderflow.broker.log.LogDirectory;
import io.orderflow.broker.log.Topic;
import io.orderflow.broker.txn.TransactionCoordinator;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.acl.AclOperation;
import org.apache.kafka.common.message.AddPartitionsToTxnRequestData;
import org.apache.kafka.common.message.AddPartitionsToTxnResponseData;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.requests.AbstractResponse;
import org.apache.kafka.common.requests.AddPartitionsToTxnRequest;
import org.apache.kafka.common.requests.AddPartitionsToTxnResponse;
import org.apache.kafka.common.resource.ResourceType;

/**
 * AddPartitionsToTxn, the producers' versions (0 to 3; 4 and up are Kafka's broker-to-broker verification, which a
 * single broker answers itself): the partitions join the producer's transaction. As in Kafka, the request succeeds or
 * fails whole: WRITE on the transactional id (else TRANSACTIONAL_ID_AUTHORIZATION_FAILED everywhere), WRITE on each
 * topic (else TOPIC_AUTHORIZATION_FAILED) and every partition existing (else UNKNOWN_TOPIC_OR_PARTITION), the
 * partitions at fault named and the others answered OPERATION_NOT_ATTEMPTED.
 */
public final class AddPartitionsToTxnHandler implements ApiHandler<AddPartitionsToTxnRequest> {
    private final TransactionCoordinator transactions;
    private final LogDirectory logs;
    private final Permissions permissions;

    public AddPartitionsToTxnHandler(TransactionCoordinator transactions, LogDirectory logs, Permissions permissions) {
        this.transactions = transactions;
        this.logs = logs;
        this.permissions = permissions;
    }

    @Override
    public AbstractResponse handle(ClientInfo client, AddPartitionsToTxnRequest request) {
        AddPartitionsToTxnRequestData data = request.data();
        List<TopicPartition> partitions = AddPartitionsToTxnRequest.getPartitions(data.v3AndBelowTopics());
        if (!permissions.allows(
                client, AclOperation.WRITE, ResourceType.TRANSACTIONAL_ID, data.v3AndBelowTransactionalId())) {
            return answer(partitions, tp -> Errors.TRANSACTIONAL_ID_AUTHORIZATION_FAILED);
        }
        Map<TopicPartition, Errors> refused = new HashMap<>();
        for (TopicPartition tp : partitions) {
            if (!permissions.allowsTopic(client, AclOperation.WRITE, tp.topic())) {
                refused.put(tp, Errors.TOPIC_AUTHORIZATION_FAILED);
                continue;
            }
            Optional<Topic> topic = logs.topic(tp.topic());
            if (topic.isEmpty()
                    || tp.partition() < 0
                    || tp.partition() >= topic.get().partitions()) {
                refused.put(tp, Errors.UNKNOWN_TOPIC_OR_PARTITION);
            }
        }
        if (!refused.isEmpty()) {
            return answer(partitions, tp -> refused.getOrDefault(tp, Errors.OPERATION_NOT_ATTEMPTED));
        }
        Errors error = transactions.addPartitions(
                data.v3AndBelowTransactionalId(),
                data.v3AndBelowProducerId(),
                data.v3AndBelowProducerEpoch(),
                new LinkedHashSet<>(partitions),
                request.version());
        return answer(partitions, tp -> error);
    }

    private static AddPartitionsToTxnResponse answer(
            List<TopicPartition> partitions, java.util.function.Function<TopicPartition, Errors> error) {
        Map<TopicPartition, Errors> errors = new HashMap<>();
        for (TopicPartition tp : Set.copyOf(partitions)) {
            errors.put(tp, error.apply(tp));
        }
        AddPartitionsToTxnResponseData.AddPartitionsToTxnResult result =
                AddPartitionsToTxnResponse.resultForTransaction(AddPartitionsToTxnResponse.V3_AND_BELOW_TXN_ID, errors);
        return new AddPartitionsToTxnResponse(
                new AddPartitionsToTxnResponseData().setResultsByTopicV3AndBelow(result.topicResults()));
    }
}
