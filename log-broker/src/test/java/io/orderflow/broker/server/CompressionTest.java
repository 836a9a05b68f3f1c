package io.orderflow.broker.server;

import static org.assertj.core.api.Assertions.assertThat;

import io.orderflow.frames.RequestCorpus;
import io.orderflow.frames.WireClient;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.compress.Compression;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.record.internal.CompressionType;
import org.apache.kafka.common.record.internal.MemoryRecords;
import org.apache.kafka.common.record.internal.RecordBatch;
import org.apache.kafka.common.record.internal.SimpleRecord;
import org.apache.kafka.common.requests.RequestHeader;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Every codec Kafka producers use (gzip, snappy, lz4, zstd): a stock producer's compressed batches are stored
 * compressed with the producer's codec, exactly as sent, and a stock consumer reads the records back. The broker
 * never recompresses; it only checks each batch's CRC, which covers the compressed bytes.
 */
class CompressionTest {
    @TempDir
    static Path dataDir;

    private static TestBroker broker;

    @BeforeAll
    static void start() {
        broker = TestBroker.start(dataDir);
    }

    @AfterAll
    static void stop() {
        broker.close();
    }

    @ParameterizedTest
    @EnumSource(
            value = CompressionType.class,
            names = {"GZIP", "SNAPPY", "LZ4", "ZSTD"})
    void aProducersCompressedBatchesAreStoredWithItsCodecAndReadBack(CompressionType codec) throws Exception {
        String topic = "compressed-" + codec.name;
        broker.createTopic(topic, 1, Map.of());
        List<String> sent = new ArrayList<>();
        try (KafkaProducer<String, String> producer = producer(codec)) {
            List<Future<RecordMetadata>> acks = new ArrayList<>();
            for (int i = 0; i < 200; i++) {
                String value = String.format(Locale.ROOT, "%s order %04d: two widgets, one gadget", codec.name, i);
                acks.add(producer.send(new ProducerRecord<>(topic, "order-" + i, value)));
                sent.add(value);
            }
            for (Future<RecordMetadata> ack : acks) {
                ack.get(30, TimeUnit.SECONDS);
            }
        }

        List<RecordBatch> stored = new ArrayList<>();
        LogContents.batches(broker.broker(), topic, 0).batches().forEach(stored::add);
        assertThat(stored).isNotEmpty().allSatisfy(batch -> {
            assertThat(batch.compressionType()).isEqualTo(codec);
            assertThat(batch.isValid()).isTrue();
        });
        assertThat(stored).anySatisfy(batch -> assertThat(batch.countOrNull()).isGreaterThan(1));
        assertThat(LogContents.consume(broker, topic, 1, sent.size()).stream()
                        .map(ConsumerRecord::value)
                        .toList())
                .containsExactlyElementsOf(sent);
    }

    @ParameterizedTest
    @EnumSource(
            value = CompressionType.class,
            names = {"GZIP", "SNAPPY", "LZ4", "ZSTD"})
    void storesACompressedBatchByteForByteAsSent(CompressionType codec) throws Exception {
        String topic = "as-sent-" + codec.name;
        broker.createTopic(topic, 1, Map.of());
        List<SimpleRecord> records = new ArrayList<>();
        for (int i = 0; i < 50; i++) {
            records.add(new SimpleRecord(
                    ("k" + i).getBytes(), ("value " + i + " ").repeat(10).getBytes()));
        }
        MemoryRecords batch =
                MemoryRecords.withRecords(Compression.of(codec).build(), records.toArray(SimpleRecord[]::new));
        byte[] sent = bytes(batch.buffer());

        try (WireClient client = WireClient.connect(broker.broker().port())) {
            RequestHeader header = client.send(
                    RequestCorpus.produce(
                            new RequestCorpus.Target(topic, LogContents.topicId(broker.broker(), topic)),
                            batch,
                            (short) -1,
                            (short) 13),
                    1);
            assertThat(client.receive(header).errorCounts()).containsOnlyKeys(Errors.NONE);
        }

        byte[] stored = bytes(LogContents.batches(broker.broker(), topic, 0).buffer());
        // Only the base offset (the first 8 bytes, outside the CRC) is the broker's to assign; it was 0 already.
        assertThat(stored).isEqualTo(sent);
    }

    /**
     * Compression ids 5 to 7 name no codec; kafka-clients' codec throws on them, which Apache Kafka answers with
     * UNKNOWN_SERVER_ERROR and a logged error. Here the partition is answered INVALID_RECORD at every version (before
     * v7 Kafka's request checks read the codec, from v7 only the storage does), nothing is stored, so no consumer meets
     * a batch it cannot decompress, no broker fault is counted, and the connection goes on. Found by the hostile-frames
     * harness.
     */
    @ParameterizedTest
    @org.junit.jupiter.params.provider.CsvSource({"5,13", "6,13", "7,13", "5,3", "6,6", "7,7"})
    void aBatchNamingACompressionNoCodecHasIsRefusedAtEveryVersion(int compressionId, short version) throws Exception {
        String topic = "unknown-codec-" + compressionId + "-v" + version;
        broker.createTopic(topic, 1, Map.of());
        byte[] valid =
                bytes(MemoryRecords.withRecords(Compression.NONE, new SimpleRecord("k".getBytes(), "v".getBytes()))
                        .buffer());
        // The same batch naming codec compressionId, with a CRC that matches, so that only the codec id is wrong.
        ByteBuffer batch = ByteBuffer.wrap(valid.clone());
        int attributes = 21; // base offset 8, length 4, leader epoch 4, magic 1, CRC 4
        batch.putShort(attributes, (short) ((batch.getShort(attributes) & ~0x07) | compressionId));
        java.util.zip.CRC32C crc = new java.util.zip.CRC32C();
        crc.update(batch.duplicate().position(attributes));
        batch.putInt(17, (int) crc.getValue());

        try (WireClient client = WireClient.connect(broker.broker().port())) {
            // kafka-clients will not build such a request (before v7 it reads the codec), so the valid batch is
            // swapped for it in the request's bytes.
            var request = RequestCorpus.produce(
                    new RequestCorpus.Target(topic, LogContents.topicId(broker.broker(), topic)),
                    MemoryRecords.readableRecords(ByteBuffer.wrap(valid)),
                    (short) -1,
                    version);
            RequestHeader header = new RequestHeader(request.apiKey(), version, "wire-client", 1);
            byte[] frame = WireClient.frame(request, header);
            int at = indexOf(frame, valid);
            System.arraycopy(batch.array(), 0, frame, at, valid.length);
            client.sendFrame(frame);

            var answer = (org.apache.kafka.common.requests.ProduceResponse) client.receive(header);
            var partition = answer.data()
                    .responses()
                    .iterator()
                    .next()
                    .partitionResponses()
                    .getFirst();
            assertThat(Errors.forCode(partition.errorCode())).isEqualTo(Errors.INVALID_RECORD);
            if (version >= 8) { // error_message is there from v8
                assertThat(partition.errorMessage()).containsPattern("compression type id:? " + compressionId);
            }

            RequestHeader next =
                    client.send(new org.apache.kafka.common.requests.ApiVersionsRequest.Builder().build((short) 3), 2);
            assertThat(client.receive(next).errorCounts()).containsOnlyKeys(Errors.NONE);
        }

        assertThat(LogContents.batches(broker.broker(), topic, 0).sizeInBytes()).isZero();
        assertThat(broker.broker().requestFaults().counts().keySet())
                .noneMatch(k -> k.api() == org.apache.kafka.common.protocol.ApiKeys.PRODUCE);
    }

    /** The stock idempotent {@code acks=all} producer, compressing with {@code codec}, lingering to fill batches. */
    private static KafkaProducer<String, String> producer(CompressionType codec) {
        Properties p = new Properties();
        p.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, broker.bootstrap());
        p.put(ProducerConfig.ACKS_CONFIG, "all");
        p.put(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, "true");
        p.put(ProducerConfig.COMPRESSION_TYPE_CONFIG, codec.name);
        p.put(ProducerConfig.LINGER_MS_CONFIG, "50");
        p.put(ProducerConfig.BATCH_SIZE_CONFIG, "65536");
        return new KafkaProducer<>(p, new StringSerializer(), new StringSerializer());
    }

    private static int indexOf(byte[] haystack, byte[] needle) {
        for (int i = 0; i + needle.length <= haystack.length; i++) {
            if (java.util.Arrays.equals(haystack, i, i + needle.length, needle, 0, needle.length)) {
                return i;
            }
        }
        throw new AssertionError("the batch is not in the request's bytes");
    }

    private static byte[] bytes(ByteBuffer buffer) {
        byte[] bytes = new byte[buffer.remaining()];
        buffer.duplicate().get(bytes);
        return bytes;
    }
}
