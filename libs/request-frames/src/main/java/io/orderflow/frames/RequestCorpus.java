package io.orderflow.frames;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.function.Function;
import org.apache.kafka.common.IsolationLevel;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.compress.Compression;
import org.apache.kafka.common.errors.UnsupportedVersionException;
import org.apache.kafka.common.message.CreateTopicsRequestData;
import org.apache.kafka.common.message.InitProducerIdRequestData;
import org.apache.kafka.common.message.ListOffsetsRequestData;
import org.apache.kafka.common.message.ProduceRequestData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.ApiMessage;
import org.apache.kafka.common.protocol.MessageUtil;
import org.apache.kafka.common.record.internal.MemoryRecords;
import org.apache.kafka.common.record.internal.SimpleRecord;
import org.apache.kafka.common.requests.AbstractRequest;
import org.apache.kafka.common.requests.ApiVersionsRequest;
import org.apache.kafka.common.requests.CreateTopicsRequest;
import org.apache.kafka.common.requests.FetchRequest;
import org.apache.kafka.common.requests.InitProducerIdRequest;
import org.apache.kafka.common.requests.ListOffsetsRequest;
import org.apache.kafka.common.requests.MetadataRequest;
import org.apache.kafka.common.requests.ProduceRequest;
import org.apache.kafka.common.requests.RequestHeader;

/**
 * Valid request frames (header and body, no size prefix) built with kafka-clients' own request builders and
 * serializer, for tests that feed the broker what real clients send, as is or mutated.
 */
public final class RequestCorpus {
    /** The APIs the broker serves with realistic bodies below; every other API key gets a default body. */
    public static final Set<ApiKeys> SERVED = EnumSet.of(
            ApiKeys.API_VERSIONS,
            ApiKeys.METADATA,
            ApiKeys.PRODUCE,
            ApiKeys.FETCH,
            ApiKeys.LIST_OFFSETS,
            ApiKeys.INIT_PRODUCER_ID,
            ApiKeys.CREATE_TOPICS);

    private RequestCorpus() {}

    /** One serialized request. */
    public record Sample(ApiKeys api, short version, int correlationId, byte[] frame) {
        @Override
        public String toString() {
            return api + " v" + version + " (" + frame.length + " bytes)";
        }
    }

    /** A topic the requests name, by name (older versions) and id (Produce v13, Fetch v13+). */
    public record Target(String name, Uuid id) {}

    /**
     * Requests of the APIs in {@link #SERVED} except CreateTopics, at every version the codec knows, naming
     * {@code target} partition 0 and carrying {@code records} in Produce.
     */
    public static List<Sample> served(Target target, MemoryRecords records) {
        List<Sample> samples = new ArrayList<>();
        everyVersion(samples, ApiKeys.API_VERSIONS, v -> new ApiVersionsRequest.Builder().build(v));
        everyVersion(
                samples, ApiKeys.METADATA, v -> new MetadataRequest.Builder(List.of(target.name()), false).build(v));
        everyVersion(samples, ApiKeys.PRODUCE, v -> produce(target, records, (short) -1, v));
        everyVersion(samples, ApiKeys.FETCH, v -> fetch(target, 0L, 10, v));
        everyVersion(
                samples,
                ApiKeys.LIST_OFFSETS,
                v -> ListOffsetsRequest.Builder.forConsumer(false, IsolationLevel.READ_UNCOMMITTED)
                        .setTargetTimes(List.of(new ListOffsetsRequestData.ListOffsetsTopic()
                                .setName(target.name())
                                .setPartitions(List.of(new ListOffsetsRequestData.ListOffsetsPartition()
                                        .setPartitionIndex(0)
                                        .setTimestamp(ListOffsetsRequest.LATEST_TIMESTAMP)))))
                        .build(v));
        everyVersion(
                samples,
                ApiKeys.INIT_PRODUCER_ID,
                v -> new InitProducerIdRequest.Builder(new InitProducerIdRequestData()
                                .setTransactionalId(null)
                                .setTransactionTimeoutMs(60_000))
                        .build(v));
        return samples;
    }

    /** CreateTopics of {@code topic} (one partition) at every version. */
    public static List<Sample> createTopics(String topic) {
        List<Sample> samples = new ArrayList<>();
        everyVersion(
                samples,
                ApiKeys.CREATE_TOPICS,
                v -> new CreateTopicsRequest.Builder(new CreateTopicsRequestData()
                                .setTimeoutMs(10_000)
                                .setTopics(new CreateTopicsRequestData.CreatableTopicCollection(
                                        List.of(new CreateTopicsRequestData.CreatableTopic()
                                                        .setName(topic)
                                                        .setNumPartitions(1)
                                                        .setReplicationFactor((short) 1))
                                                .iterator())))
                        .build(v));
        return samples;
    }

    /** A request with every field at its default, for every version of every API key outside {@link #SERVED}. */
    public static List<Sample> otherApis() {
        List<Sample> samples = new ArrayList<>();
        for (ApiKeys api : ApiKeys.values()) {
            if (!SERVED.contains(api)) {
                everyVersion(samples, api, v -> defaultRequest(api, v));
            }
        }
        return samples;
    }

    /** Everything above, for tests of the codec alone. */
    public static List<Sample> all() {
        List<Sample> samples = new ArrayList<>();
        samples.addAll(served(new Target("orders", Uuid.randomUuid()), records("key", "value")));
        samples.addAll(createTopics("new-topic"));
        samples.addAll(otherApis());
        return samples;
    }

    public static MemoryRecords records(String key, String value) {
        return MemoryRecords.withRecords(
                Compression.NONE,
                new SimpleRecord(key.getBytes(StandardCharsets.UTF_8), value.getBytes(StandardCharsets.UTF_8)));
    }

    /** A copy of {@code records} whose first batch fails its CRC check (the stored CRC is inverted). */
    public static MemoryRecords withBadCrc(MemoryRecords records) {
        ByteBuffer copy = ByteBuffer.allocate(records.sizeInBytes());
        copy.put(records.buffer()).flip();
        int crcOffset = 17;
        copy.putInt(crcOffset, ~copy.getInt(crcOffset));
        return MemoryRecords.readableRecords(copy);
    }

    /** Produce of {@code records} to partition 0 of {@code target}, naming it by id from v13 on. */
    public static ProduceRequest produce(Target target, MemoryRecords records, short acks, short version) {
        return produce(target, Map.of(0, records), acks, version);
    }

    public static ProduceRequest produce(
            Target target, Map<Integer, MemoryRecords> partitions, short acks, short version) {
        ProduceRequestData.TopicProduceData topic = new ProduceRequestData.TopicProduceData();
        if (version >= 13) {
            topic.setTopicId(target.id());
        } else {
            topic.setName(target.name());
        }
        partitions.forEach((p, records) -> topic.partitionData()
                .add(new ProduceRequestData.PartitionProduceData().setIndex(p).setRecords(records)));
        ProduceRequestData data = new ProduceRequestData()
                .setAcks(acks)
                .setTimeoutMs(10_000)
                .setTopicData(new ProduceRequestData.TopicProduceDataCollection(
                        List.of(topic).iterator()));
        return ProduceRequest.builder(data).build(version);
    }

    /** A consumer's full fetch of partition 0 of {@code target} from {@code offset}, up to 1 MiB. */
    public static FetchRequest fetch(Target target, long offset, int maxWaitMs, short version) {
        return fetch(target, List.of(0), offset, maxWaitMs, 1024 * 1024, version);
    }

    /** A full fetch of {@code partitions}, each and all together up to {@code maxBytes}, at least one byte. */
    public static FetchRequest fetch(
            Target target, List<Integer> partitions, long offset, int maxWaitMs, int maxBytes, short version) {
        Map<TopicPartition, FetchRequest.PartitionData> data = new LinkedHashMap<>();
        for (int p : partitions) {
            data.put(
                    new TopicPartition(target.name(), p),
                    new FetchRequest.PartitionData(target.id(), offset, -1L, maxBytes, Optional.empty()));
        }
        return FetchRequest.Builder.forConsumer(version, maxWaitMs, 1, data)
                .setMaxBytes(maxBytes)
                .build(version);
    }

    /** Null when the request class refuses default values (DescribeAcls wants real filters, for one). */
    private static AbstractRequest defaultRequest(ApiKeys api, short version) {
        ApiMessage data = api.messageType.newRequest();
        try {
            return AbstractRequest.parseRequest(api, version, MessageUtil.toByteBufferAccessor(data, version)).request;
        } catch (IllegalArgumentException e) {
            return null;
        }
    }

    /**
     * Adds {@code build} at each version of {@code api}; a version a builder cannot express with these values
     * (say Metadata below v4 without auto-creation) is left out.
     */
    private static void everyVersion(List<Sample> samples, ApiKeys api, Function<Short, AbstractRequest> build) {
        for (short v = api.oldestVersion(); v <= api.latestVersion(true); v++) {
            AbstractRequest request;
            try {
                request = build.apply(v);
            } catch (UnsupportedVersionException e) {
                continue;
            }
            if (request == null) {
                continue;
            }
            int correlationId = samples.size() + 1;
            RequestHeader header = new RequestHeader(api, v, "corpus", correlationId);
            ByteBuffer buf = request.serializeWithHeader(header);
            byte[] frame = new byte[buf.remaining()];
            buf.get(frame);
            samples.add(new Sample(api, v, correlationId, frame));
        }
    }
}
