package io.orderflow.broker.handler;

import io.orderflow.broker.log.ProducerIds;
import org.apache.kafka.common.message.InitProducerIdResponseData;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.requests.AbstractResponse;
import org.apache.kafka.common.requests.InitProducerIdRequest;
import org.apache.kafka.common.requests.InitProducerIdResponse;

/**
 * InitProducerId for idempotent producers: a fresh producer id at epoch 0, or, when a producer asks to bump
 * its epoch after an error (KIP-360), the same id at the next epoch (a fresh id once the epoch would
 * overflow). Transactions are not implemented: a transactional id gets an error naming that.
 */
public final class InitProducerIdHandler implements ApiHandler<InitProducerIdRequest> {
    private final ProducerIds ids;

    public InitProducerIdHandler(ProducerIds ids) {
        this.ids = ids;
    }

    @Override
    public AbstractResponse handle(ClientInfo client, InitProducerIdRequest request) {
        var data = request.data();
        if (data.transactionalId() != null) {
            return new InitProducerIdResponse(new InitProducerIdResponseData()
                    .setErrorCode(Errors.INVALID_REQUEST.code())
                    .setProducerId(-1)
                    .setProducerEpoch((short) -1));
        }
        long producerId;
        short epoch;
        if (data.producerId() >= 0 && data.producerEpoch() >= 0 && data.producerEpoch() < Short.MAX_VALUE - 1) {
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
}
