package io.orderflow.broker.handler;

import io.orderflow.broker.txn.TransactionCoordinator;
import io.orderflow.broker.txn.TransactionMetadata;
import io.orderflow.broker.txn.TransactionState;
import java.time.Clock;
import java.util.HashSet;
import java.util.Set;
import java.util.regex.Pattern;
import java.util.regex.PatternSyntaxException;
import org.apache.kafka.common.acl.AclOperation;
import org.apache.kafka.common.message.ListTransactionsRequestData;
import org.apache.kafka.common.message.ListTransactionsResponseData;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.requests.AbstractResponse;
import org.apache.kafka.common.requests.ListTransactionsRequest;
import org.apache.kafka.common.requests.ListTransactionsResponse;
import org.apache.kafka.common.resource.ResourceType;

/**
 * ListTransactions ({@code kafka-transactions.sh list}, and {@code find-hanging}'s first step): the transactional
 * ids the client may DESCRIBE, filtered by state names (unknown names are echoed back, as Kafka does), producer ids,
 * from v1 by how long their transaction has been open, and from v2 by a regular expression on the id (an invalid one
 * is INVALID_REGULAR_EXPRESSION).
 */
public final class ListTransactionsHandler implements ApiHandler<ListTransactionsRequest> {
    private final TransactionCoordinator transactions;
    private final Permissions permissions;
    private final Clock clock;

    public ListTransactionsHandler(TransactionCoordinator transactions, Permissions permissions, Clock clock) {
        this.transactions = transactions;
        this.permissions = permissions;
        this.clock = clock;
    }

    @Override
    public AbstractResponse handle(ClientInfo client, ListTransactionsRequest request) {
        ListTransactionsRequestData data = request.data();
        ListTransactionsResponseData response = new ListTransactionsResponseData().setErrorCode(Errors.NONE.code());
        Pattern pattern = null;
        if (data.transactionalIdPattern() != null
                && !data.transactionalIdPattern().isEmpty()) {
            try {
                pattern = Pattern.compile(data.transactionalIdPattern());
            } catch (PatternSyntaxException e) {
                return new ListTransactionsResponse(response.setErrorCode(Errors.INVALID_REGULAR_EXPRESSION.code()));
            }
        }
        Set<String> states = new HashSet<>();
        for (String name : data.stateFilters()) {
            if (TransactionState.ofKafkaName(name) != null) {
                states.add(name);
            } else {
                response.unknownStateFilters().add(name);
            }
        }
        Set<Long> producerIds = new HashSet<>(data.producerIdFilters());
        long now = clock.millis();
        for (TransactionMetadata m : transactions.transactions()) {
            boolean wanted = (data.stateFilters().isEmpty()
                            || states.contains(m.state().kafkaName()))
                    && (producerIds.isEmpty() || producerIds.contains(m.producerId()))
                    && (data.durationFilter() < 0
                            || (m.txnStartMs() >= 0 && now - m.txnStartMs() >= data.durationFilter()))
                    && (pattern == null || pattern.matcher(m.transactionalId()).matches())
                    && permissions.allows(
                            client, AclOperation.DESCRIBE, ResourceType.TRANSACTIONAL_ID, m.transactionalId());
            if (wanted) {
                response.transactionStates()
                        .add(new ListTransactionsResponseData.TransactionState()
                                .setTransactionalId(m.transactionalId())
                                .setProducerId(m.producerId())
                                .setTransactionState(m.state().kafkaName()));
            }
        }
        return new ListTransactionsResponse(response);
    }
}
