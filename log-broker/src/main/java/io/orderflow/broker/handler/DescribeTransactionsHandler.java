package io.orderflow.broker.handler;

import io.orderflow.broker.txn.TransactionCoordinator;
import io.orderflow.broker.txn.TransactionMetadata;
import java.util.Optional;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.acl.AclOperation;
import org.apache.kafka.common.message.DescribeTransactionsResponseData;
import org.apache.kafka.common.message.DescribeTransactionsResponseData.TopicData;
import org.apache.kafka.common.message.DescribeTransactionsResponseData.TransactionState;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.requests.AbstractResponse;
import org.apache.kafka.common.requests.DescribeTransactionsRequest;
import org.apache.kafka.common.requests.DescribeTransactionsResponse;
import org.apache.kafka.common.resource.ResourceType;

/**
 * DescribeTransactions ({@code kafka-transactions.sh describe}): each transactional id's state, producer id and epoch,
 * timeout, the start of its open transaction and its partitions. DESCRIBE on the transactional id, else
 * TRANSACTIONAL_ID_AUTHORIZATION_FAILED; an id the coordinator does not know is TRANSACTIONAL_ID_NOT_FOUND.
 */
public final class DescribeTransactionsHandler implements ApiHandler<DescribeTransactionsRequest> {
    private final TransactionCoordinator transactions;
    private final Permissions permissions;

    public DescribeTransactionsHandler(TransactionCoordinator transactions, Permissions permissions) {
        this.transactions = transactions;
        this.permissions = permissions;
    }

    @Override
    public AbstractResponse handle(ClientInfo client, DescribeTransactionsRequest request) {
        DescribeTransactionsResponseData response = new DescribeTransactionsResponseData();
        for (String id : request.data().transactionalIds()) {
            TransactionState state = new TransactionState()
                    .setTransactionalId(id)
                    .setTransactionState("")
                    .setProducerId(-1)
                    .setProducerEpoch((short) -1)
                    .setTransactionStartTimeMs(-1);
            response.transactionStates().add(state);
            if (!permissions.allows(client, AclOperation.DESCRIBE, ResourceType.TRANSACTIONAL_ID, id)) {
                state.setErrorCode(Errors.TRANSACTIONAL_ID_AUTHORIZATION_FAILED.code());
                continue;
            }
            Optional<TransactionMetadata> found = transactions.describe(id);
            if (found.isEmpty()) {
                state.setErrorCode(Errors.TRANSACTIONAL_ID_NOT_FOUND.code());
                continue;
            }
            TransactionMetadata m = found.get();
            state.setErrorCode(Errors.NONE.code())
                    .setTransactionState(m.state().kafkaName())
                    .setTransactionTimeoutMs(m.timeoutMs())
                    .setTransactionStartTimeMs(m.txnStartMs())
                    .setProducerId(m.producerId())
                    .setProducerEpoch(m.producerEpoch());
            for (TopicPartition tp : m.partitions()) {
                TopicData topic = state.topics().find(tp.topic());
                if (topic == null) {
                    topic = new TopicData().setTopic(tp.topic());
                    state.topics().add(topic);
                }
                topic.partitions().add(tp.partition());
            }
        }
        return new DescribeTransactionsResponse(response);
    }
}
