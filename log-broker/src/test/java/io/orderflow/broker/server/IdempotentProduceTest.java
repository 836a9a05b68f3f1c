package io.orderflow.broker.server;

import static org.assertj.core.api.Assertions.assertThat;

import io.orderflow.frames.RequestCorpus;
import io.orderflow.frames.WireClient;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.Map;
import org.apache.kafka.common.compress.Compression;
import org.apache.kafka.common.message.InitProducerIdRequestData;
import org.apache.kafka.common.message.ProduceResponseData;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.record.internal.MemoryRecords;
import org.apache.kafka.common.record.internal.SimpleRecord;
import org.apache.kafka.common.requests.InitProducerIdRequest;
import org.apache.kafka.common.requests.InitProducerIdResponse;
import org.apache.kafka.common.requests.ProduceResponse;
import org.apache.kafka.common.requests.RequestHeader;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * An idempotent producer's retry, sent on the wire exactly as the Java client resends a batch whose answer it
 * lost: the broker answers with the original offsets and stores nothing new, also after a restart.
 */
class IdempotentProduceTest {
    private static final String TOPIC = "payments";

    @TempDir
    Path dataDir;

    private TestBroker broker;
    private int correlationId;

    @BeforeEach
    void start() throws Exception {
        broker = TestBroker.start(dataDir);
        broker.createTopic(TOPIC, 1, Map.of());
    }

    @AfterEach
    void stop() {
        broker.close();
    }

    private InitProducerIdResponse initProducerId(WireClient client) throws Exception {
        InitProducerIdRequest request = new InitProducerIdRequest.Builder(new InitProducerIdRequestData()
                        .setTransactionalId(null)
                        .setTransactionTimeoutMs(Integer.MAX_VALUE))
                .build((short) 5);
        RequestHeader header = client.send(request, ++correlationId);
        return (InitProducerIdResponse) client.receive(header);
    }

    private ProduceResponseData.PartitionProduceResponse produce(WireClient client, ByteBuffer batch) throws Exception {
        MemoryRecords records = MemoryRecords.readableRecords(
                ByteBuffer.allocate(batch.remaining()).put(batch.duplicate()).flip());
        RequestCorpus.Target target = new RequestCorpus.Target(TOPIC, LogContents.topicId(broker.broker(), TOPIC));
        RequestHeader header =
                client.send(RequestCorpus.produce(target, records, (short) -1, (short) 13), ++correlationId);
        ProduceResponse response = (ProduceResponse) client.receive(header);
        return response.data()
                .responses()
                .iterator()
                .next()
                .partitionResponses()
                .getFirst();
    }

    private static ByteBuffer batch(long producerId, short epoch, int sequence, String... values) {
        SimpleRecord[] records = new SimpleRecord[values.length];
        for (int i = 0; i < values.length; i++) {
            records[i] = new SimpleRecord(("k" + i).getBytes(), values[i].getBytes());
        }
        return MemoryRecords.withIdempotentRecords(Compression.NONE, producerId, epoch, sequence, records)
                .buffer();
    }

    @Test
    void aRetriedBatchGetsItsOriginalOffsetsAndIsStoredOnceAlsoAfterARestart() throws Exception {
        long producerId;
        short epoch;
        ByteBuffer first;
        try (WireClient client = WireClient.connect(broker.broker().port())) {
            InitProducerIdResponse init = initProducerId(client);
            assertThat(init.error()).isEqualTo(Errors.NONE);
            producerId = init.data().producerId();
            epoch = init.data().producerEpoch();
            first = batch(producerId, epoch, 0, "a", "b");

            ProduceResponseData.PartitionProduceResponse original = produce(client, first);
            ProduceResponseData.PartitionProduceResponse second = produce(client, batch(producerId, epoch, 2, "c"));
            ProduceResponseData.PartitionProduceResponse retry = produce(client, first);

            assertThat(original.errorCode()).isEqualTo(Errors.NONE.code());
            assertThat(second.baseOffset()).isEqualTo(2);
            assertThat(retry.errorCode()).isEqualTo(Errors.NONE.code());
            assertThat(retry.baseOffset()).isEqualTo(original.baseOffset());
        }
        assertThat(LogContents.values(broker.broker(), TOPIC, 0)).containsExactly("a", "b", "c");

        broker.restart();

        try (WireClient client = WireClient.connect(broker.broker().port())) {
            ProduceResponseData.PartitionProduceResponse retryAfterRestart = produce(client, first);
            ProduceResponseData.PartitionProduceResponse gap = produce(client, batch(producerId, epoch, 9, "gap"));
            InitProducerIdResponse another = initProducerId(client);

            assertThat(retryAfterRestart.errorCode()).isEqualTo(Errors.NONE.code());
            assertThat(retryAfterRestart.baseOffset()).isZero();
            assertThat(gap.errorCode()).isEqualTo(Errors.OUT_OF_ORDER_SEQUENCE_NUMBER.code());
            // Producer ids are never handed out twice, not even across a restart.
            assertThat(another.data().producerId()).isNotEqualTo(producerId);
        }
        assertThat(LogContents.values(broker.broker(), TOPIC, 0)).containsExactly("a", "b", "c");
    }
}
