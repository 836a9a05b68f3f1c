package io.orderflow.broker.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.orderflow.frames.FrameMutation;
import io.orderflow.frames.RequestCorpus;
import io.orderflow.frames.WireClient;
import io.orderflow.property.Gen;
import io.orderflow.property.Properties;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Queue;
import java.util.SequencedMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.message.ApiVersionsResponseData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.requests.AbstractResponse;
import org.apache.kafka.common.requests.ApiVersionsRequest;
import org.apache.kafka.common.requests.ApiVersionsResponse;
import org.apache.kafka.common.requests.RequestHeader;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * A live broker fed random and mutated frames over raw sockets while a stock producer and consumer work on other
 * connections. After every burst of bad input the broker still answers a new connection, and the protected
 * topic holds exactly what the good producer wrote, in order: no bad request changed it. At the end a fresh
 * consumer reads back exactly the acknowledged records.
 *
 * <p>The bad input is built from valid requests of every API (see {@link RequestCorpus}); those that name the
 * protected topic carry only batches with a wrong CRC, those that carry valid batches name a scratch topic, so
 * any change to the protected topic is the broker's fault. CreateTopics is left out: a valid request for
 * millions of partitions is an operator's problem, not bad input.
 */
class BadInputPropertyTest {
    private static final String PROTECTED = "orders";
    private static final String SCRATCH = "fuzz-scratch-topic";

    private static Path dataDir;
    private static TestBroker broker;
    private static List<RequestCorpus.Sample> corpus;
    private static final Map<Short, ApiVersionsResponseData.ApiVersion> advertised = new HashMap<>();
    private static GoodClients good;

    /** Bytes a bad client writes: requests mutated inside or around their size prefix, and plain noise. */
    sealed interface Chunk {
        byte[] bytes();
    }

    record Valid(RequestCorpus.Sample sample) implements Chunk {
        public byte[] bytes() {
            return WireClient.withSize(sample.frame());
        }
    }

    /** A mutated request behind a size prefix that matches it. */
    record Mutated(RequestCorpus.Sample sample, List<FrameMutation> mutations) implements Chunk {
        public byte[] bytes() {
            return WireClient.withSize(FrameMutation.applyAll(sample.frame(), mutations));
        }
    }

    /** A request mutated with its size prefix, which may then claim more or less than follows. */
    record MutatedWithSize(RequestCorpus.Sample sample, List<FrameMutation> mutations) implements Chunk {
        public byte[] bytes() {
            return FrameMutation.applyAll(WireClient.withSize(sample.frame()), mutations);
        }
    }

    record Noise(byte[] bytes) implements Chunk {
        @Override
        public String toString() {
            return "Noise[" + bytes.length + " bytes]";
        }
    }

    @BeforeAll
    static void start() throws Exception {
        dataDir = Files.createTempDirectory(Files.createDirectories(Path.of("target", "tmp")), "bad-input-");
        broker = TestBroker.start(dataDir);
        broker.createTopic(PROTECTED, 1, Map.of());
        broker.createTopic(SCRATCH, 1, Map.of());
        corpus = new ArrayList<>();
        corpus.addAll(RequestCorpus.served(
                new RequestCorpus.Target(SCRATCH, LogContents.topicId(broker.broker(), SCRATCH)),
                RequestCorpus.records("k", "scratch")));
        corpus.addAll(RequestCorpus.served(
                new RequestCorpus.Target(PROTECTED, LogContents.topicId(broker.broker(), PROTECTED)),
                RequestCorpus.withBadCrc(RequestCorpus.records("k", "must-never-be-stored"))));
        corpus.addAll(RequestCorpus.otherApis());
        try (WireClient client = WireClient.connect(broker.broker().port())) {
            RequestHeader header = client.send(new ApiVersionsRequest.Builder().build((short) 3), 1);
            ((ApiVersionsResponse) client.receive(header))
                    .data()
                    .apiKeys()
                    .forEach(range -> advertised.put(range.apiKey(), range));
        }
        good = new GoodClients(broker);
    }

    @AfterAll
    static void stop() {
        if (good != null) {
            good.halt();
        }
        if (broker != null) {
            broker.close();
        }
    }

    /** Each kind of chunk with its weight, in a fixed order, so that a seed draws the same chunks. */
    private static final SequencedMap<Function<Gen, ? extends Chunk>, Integer> CHUNKS = new LinkedHashMap<>();

    static {
        CHUNKS.put(gen -> new Valid(sample(gen)), 2);
        CHUNKS.put(gen -> new Mutated(sample(gen), mutations(gen)), 6);
        CHUNKS.put(gen -> new MutatedWithSize(sample(gen), mutations(gen)), 2);
        CHUNKS.put(gen -> new Noise(gen.bytes(1, 64)), 1);
    }

    static List<Chunk> badConnection(Gen gen) {
        return gen.list(1, 10, g -> g.frequency(CHUNKS));
    }

    private static RequestCorpus.Sample sample(Gen gen) {
        return gen.oneOf(corpus);
    }

    private static List<FrameMutation> mutations(Gen gen) {
        return gen.list(1, 3, FrameMutation::any);
    }

    @Test
    void badInputNeitherStopsTheBrokerNorChangesStoredData() {
        Properties.forAll(100, gen -> {
            List<Chunk> chunks = badConnection(gen);
            int ackedBefore = good.acked().size();

            send(chunks);

            try (WireClient fresh = WireClient.connect(broker.broker().port())) {
                RequestHeader header = fresh.send(new ApiVersionsRequest.Builder().build((short) 3), 1);
                assertThat(((ApiVersionsResponse) fresh.receive(header)).data().errorCode())
                        .isEqualTo(Errors.NONE.code());
            }
            List<String> stored = LogContents.values(broker.broker(), PROTECTED, 0);
            assertThat(stored).hasSizeGreaterThanOrEqualTo(ackedBefore);
            for (int i = 0; i < stored.size(); i++) {
                assertThat(stored.get(i)).as("record at offset %d", i).isEqualTo(GoodClients.value(i));
            }
            // The good producer keeps going: one more of its records is acknowledged after this burst.
            int ackedAfterBurst = good.acked().size();
            await().atMost(Duration.ofSeconds(10))
                    .until(() -> good.acked().size() > ackedAfterBurst
                            || !good.errors().isEmpty());
            assertThat(good.errors()).isEmpty();
        });
    }

    /** After the property, all its tries: runs whether they passed or not. */
    @AfterEach
    void theGoodClientsGotExactlyWhatTheyWrote() {
        List<String> acked = good.stop();
        assertThat(good.errors()).isEmpty();
        assertThat(LogContents.consume(broker, PROTECTED, 1, acked.size()).stream()
                        .map(ConsumerRecord::value)
                        .toList())
                .isEqualTo(acked);
    }

    /**
     * Writes every chunk, reconnecting whenever the broker has closed the connection. Valid requests sent before
     * anything bad on a connection must be answered, each at its own version: a broker that dropped such a
     * connection, or answered at another version, fails here; a valid request of an API or version the broker does
     * not advertise must close it, as in Kafka. After the first bad chunk the answers are not read (what a broker
     * does with a mangled frame is its own business, as long as it stays up and the data is safe).
     */
    private static void send(List<Chunk> chunks) throws IOException {
        WireClient client = WireClient.connect(broker.broker().port());
        boolean clean = true;
        try {
            for (Chunk chunk : chunks) {
                try {
                    client.sendRaw(chunk.bytes());
                } catch (IOException closedByBroker) {
                    client.close();
                    client = WireClient.connect(broker.broker().port());
                    clean = true;
                    continue;
                }
                if (clean && chunk instanceof Valid valid && advertises(valid.sample())) {
                    assertAnswered(client, valid.sample());
                } else if (clean && chunk instanceof Valid valid) {
                    assertThat(client.closedByBroker())
                            .as("the connection closed after %s, which is not advertised", valid.sample())
                            .isTrue();
                    client.close();
                    client = WireClient.connect(broker.broker().port());
                } else {
                    clean = false;
                }
            }
        } finally {
            client.close();
        }
    }

    private static boolean advertises(RequestCorpus.Sample sample) {
        ApiVersionsResponseData.ApiVersion range = advertised.get(sample.api().id);
        return sample.api() == ApiKeys.API_VERSIONS
                || (range != null && sample.version() >= range.minVersion() && sample.version() <= range.maxVersion());
    }

    private static void assertAnswered(WireClient client, RequestCorpus.Sample sample) throws IOException {
        ByteBuffer frame;
        try {
            frame = client.receiveFrame();
        } catch (IOException e) {
            throw new AssertionError("The broker closed the connection instead of answering " + sample, e);
        }
        RequestHeader header = new RequestHeader(sample.api(), sample.version(), "corpus", sample.correlationId());
        assertThat(frame.getInt(0))
                .as("correlation id of the answer to %s", sample)
                .isEqualTo(sample.correlationId());
        AbstractResponse.parseResponse(frame, header);
        assertThat(frame.remaining())
                .as("bytes left after the answer to %s", sample)
                .isZero();
    }

    /**
     * A producer writing {@code good-0, good-1, ...} to the protected topic one acknowledged record at a time,
     * and a consumer checking it reads exactly that, each on its own thread and connections.
     */
    static final class GoodClients {
        private final List<String> acked = new CopyOnWriteArrayList<>();
        private final List<String> consumed = new CopyOnWriteArrayList<>();
        private final Queue<String> errors = new ConcurrentLinkedQueue<>();
        private volatile boolean producing = true;
        private volatile boolean consuming = true;
        private final Thread producer;
        private final Thread consumer;

        GoodClients(TestBroker broker) {
            producer = Thread.ofPlatform().name("good-producer").start(() -> produce(broker));
            consumer = Thread.ofPlatform().name("good-consumer").start(() -> consume(broker));
        }

        static String value(long offset) {
            return "good-" + offset;
        }

        private void produce(TestBroker broker) {
            try (KafkaProducer<String, String> p = broker.producer()) {
                while (producing) {
                    String value = value(acked.size());
                    p.send(new ProducerRecord<>(PROTECTED, "k", value)).get(30, TimeUnit.SECONDS);
                    acked.add(value);
                }
            } catch (Exception e) {
                errors.add("producer: " + e);
            }
        }

        private void consume(TestBroker broker) {
            try (KafkaConsumer<String, String> c = broker.consumer()) {
                c.assign(List.of(new TopicPartition(PROTECTED, 0)));
                while (consuming) {
                    for (ConsumerRecord<String, String> r : c.poll(Duration.ofMillis(100))) {
                        if (r.offset() != consumed.size() || !r.value().equals(value(r.offset()))) {
                            errors.add("consumer read " + r.value() + " at offset " + r.offset() + " after "
                                    + consumed.size() + " records");
                        }
                        consumed.add(r.value());
                    }
                }
            } catch (Exception e) {
                errors.add("consumer: " + e);
            }
        }

        List<String> acked() {
            return acked;
        }

        Queue<String> errors() {
            return errors;
        }

        /** Stops producing, lets the consumer catch up, stops it; returns what was acknowledged. */
        List<String> stop() {
            producing = false;
            join(producer);
            await().atMost(Duration.ofSeconds(30)).until(() -> consumed.size() >= acked.size() || !errors.isEmpty());
            consuming = false;
            join(consumer);
            assertThat(consumed).isEqualTo(acked);
            return List.copyOf(acked);
        }

        /** Stops both threads without checking anything. */
        void halt() {
            producing = false;
            consuming = false;
            join(producer);
            join(consumer);
        }

        private static void join(Thread thread) {
            try {
                thread.join(Duration.ofSeconds(60));
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
    }
}
