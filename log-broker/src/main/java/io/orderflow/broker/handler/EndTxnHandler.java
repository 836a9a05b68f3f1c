package io.orderflow.broker.handler;

import io.orderflow.broker.txn.TransactionCoordinator;
import org.apache.kafka.common.acl.AclOperation;
import org.apache.kafka.common.message.EndTxnRequestData;
import org.apache.kafka.common.message.EndTxnResponseData;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.requests.AbstractResponse;
import org.apache.kafka.common.requests.EndTxnRequest;
import org.apache.kafka.common.requests.EndTxnResponse;
import org.apache.kafka.common.resource.ResourceType;

/**
 * EndTxn (versions 0 to 4, before KIP-890's per-transaction epoch bump): commits or aborts the producer's
 * transaction, answering once every marker is durable. WRITE on the transactional id, else
 * TRANSACTIONAL_ID_AUTHORIZATION_FAILED.
 */
public final class EndTxnHandler implements ApiHandler<EndTxnRequest> {
    private final TransactionCoordinator transactions;
    private final Permissions permissions;

    public EndTxnHandler(TransactionCoordinator transactions, Permissions permissions) {
        this.transactions = transactions;
        this.permissions = permissions;
    }

    @Override
    public AbstractResponse handle(ClientInfo client, EndTxnRequest request) {
        EndTxnRequestData data = request.data();
        Errors error =
                permissions.allows(client, AclOperation.WRITE, ResourceType.TRANSACTIONAL_ID, data.transactionalId())
                        ? transactions.endTransaction(
                                data.transactionalId(),
                                data.producerId(),
                                data.producerEpoch(),
                                data.committed(),
                                request.version())
                        : Errors.TRANSACTIONAL_ID_AUTHORIZATION_FAILED;
        return new EndTxnResponse(new EndTxnResponseData()
                .setErrorCode(error.code())
                .setProducerId(-1)
                .setProducerEpoch((short) -1));
    }
}
