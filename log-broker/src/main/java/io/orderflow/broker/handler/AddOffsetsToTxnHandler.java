package io.orderflow.broker.handler;

import io.orderflow.broker.txn.TransactionCoordinator;
import org.apache.kafka.common.acl.AclOperation;
import org.apache.kafka.common.message.AddOffsetsToTxnRequestData;
import org.apache.kafka.common.message.AddOffsetsToTxnResponseData;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.requests.AbstractResponse;
import org.apache.kafka.common.requests.AddOffsetsToTxnRequest;
import org.apache.kafka.common.requests.AddOffsetsToTxnResponse;
import org.apache.kafka.common.resource.ResourceType;

/**
 * AddOffsetsToTxn: the group's offsets join the producer's transaction, so that its TxnOffsetCommit counts only if
 * the transaction commits. WRITE on the transactional id (else TRANSACTIONAL_ID_AUTHORIZATION_FAILED) and READ on the
 * group (else GROUP_AUTHORIZATION_FAILED), as Kafka checks.
 */
public final class AddOffsetsToTxnHandler implements ApiHandler<AddOffsetsToTxnRequest> {
    private final TransactionCoordinator transactions;
    private final Permissions permissions;

    public AddOffsetsToTxnHandler(TransactionCoordinator transactions, Permissions permissions) {
        this.transactions = transactions;
        this.permissions = permissions;
    }

    @Override
    public AbstractResponse handle(ClientInfo client, AddOffsetsToTxnRequest request) {
        AddOffsetsToTxnRequestData data = request.data();
        Errors error;
        if (!permissions.allows(client, AclOperation.WRITE, ResourceType.TRANSACTIONAL_ID, data.transactionalId())) {
            error = Errors.TRANSACTIONAL_ID_AUTHORIZATION_FAILED;
        } else if (!permissions.allowsGroup(client, AclOperation.READ, data.groupId())) {
            error = Errors.GROUP_AUTHORIZATION_FAILED;
        } else {
            error = transactions.addOffsets(
                    data.transactionalId(), data.producerId(), data.producerEpoch(), request.version());
        }
        return new AddOffsetsToTxnResponse(new AddOffsetsToTxnResponseData().setErrorCode(error.code()));
    }
}
