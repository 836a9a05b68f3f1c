package io.orderflow.broker.handler;

import io.orderflow.broker.log.ProducerIds;
import io.orderflow.broker.txn.TransactionCoordinator;
import org.apache.kafka.common.acl.AclOperation;
import org.apache.kafka.common.message.InitProducerIdResponseData;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.requests.AbstractResponse;
import org.apache.kafka.common.requests.InitProducerIdRequest;
import org.apache.kafka.common.requests.InitProducerIdResponse;
import org.apache.kafka.common.resource.ResourceType;

/**
 * InitProducerId. For idempotent producers: a fresh producer id at epoch 0, or, when a producer asks to bump its
 * epoch after an error (KIP-360), the same id at the next epoch (a fresh id once the epoch would overflow). With a
 * transactional id, the {@link TransactionCoordinator} answers: the id's producer id at its next epoch, which fences
 * every older instance of the producer.
 *
 * <p>Authorisation, as Kafka's: with a transactional id, WRITE on it (else TRANSACTIONAL_ID_AUTHORIZATION_FAILED);
 * without, IDEMPOTENT_WRITE on the cluster or WRITE on some topic (else CLUSTER_AUTHORIZATION_FAILED).
 */
public final class InitProducerIdHandler implements ApiHandler<InitProducerIdRequest> {
    private final ProducerIds ids;
    private final TransactionCoordinator transactions;
    private final Permissions permissions;

    public InitProducerIdHandler(ProducerIds ids, TransactionCoordinator transactions, Permissions permissions) {
        this.ids = ids;
        this.transactions = transactions;
        this.permissions = permissions;
    }

    @Override
    public AbstractResponse handle(ClientInfo client, InitProducerIdRequest request) {
        var data = request.data();
        if (data.transactionalId() != null) {
            if (!permissions.allows(
                    client, AclOperation.WRITE, ResourceType.TRANSACTIONAL_ID, data.transactionalId())) {
                return refuse(Errors.TRANSACTIONAL_ID_AUTHORIZATION_FAILED);
            }
            TransactionCoordinator.ProducerIdAndEpoch answer = transactions.initProducerId(
                    data.transactionalId(),
                    data.transactionTimeoutMs(),
                    data.producerId(),
                    data.producerEpoch(),
                    request.version());
            return new InitProducerIdResponse(new InitProducerIdResponseData()
                    .setErrorCode(answer.error().code())
                    .setProducerId(answer.producerId())
                    .setProducerEpoch(answer.producerEpoch()));
        }
        if (!permissions.allowsCluster(client, AclOperation.IDEMPOTENT_WRITE)
                && !permissions.allowsAny(client, AclOperation.WRITE, ResourceType.TOPIC)) {
            return refuse(Errors.CLUSTER_AUTHORIZATION_FAILED);
        }
        long producerId;
        short epoch;
        // A producer id of a transactional id is never handed to an idempotent producer: its epoch would fence it.
        if (data.producerId() >= 0
                && data.producerEpoch() >= 0
                && data.producerEpoch() < Short.MAX_VALUE - 1
                && !transactions.ownsProducerId(data.producerId())) {
            producerId = data.producerId();
            epoch = (short) (data.producerEpoch() + 1);
        } else {
            producerId = ids.nextId();
            epoch = 0;
        }
        return new InitProducerIdResponse(new InitProducerIdResponseData()
                .setErrorCode(Errors.NONE.code())
                .setProducerId(producerId)
                .setProducerEpoch(epoch));
    }

    private static InitProducerIdResponse refuse(Errors error) {
        return new InitProducerIdResponse(new InitProducerIdResponseData()
                .setErrorCode(error.code())
                .setProducerId(-1)
                .setProducerEpoch((short) -1));
    }
}
