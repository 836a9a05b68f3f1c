package io.orderflow.broker.server;

import static org.assertj.core.api.Assertions.assertThat;

import io.orderflow.frames.RequestCorpus;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;
import java.util.function.Supplier;
import org.apache.kafka.common.IsolationLevel;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.message.CreatePartitionsRequestData;
import org.apache.kafka.common.message.CreateTopicsRequestData;
import org.apache.kafka.common.message.CreateTopicsRequestData.CreatableTopic;
import org.apache.kafka.common.message.DeleteRecordsRequestData;
import org.apache.kafka.common.message.DeleteTopicsRequestData;
import org.apache.kafka.common.message.DescribeClusterRequestData;
import org.apache.kafka.common.message.DescribeConfigsRequestData;
import org.apache.kafka.common.message.IncrementalAlterConfigsRequestData;
import org.apache.kafka.common.message.InitProducerIdRequestData;
import org.apache.kafka.common.message.ListOffsetsRequestData;
import org.apache.kafka.common.message.MetadataRequestData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.ApiMessage;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.protocol.MessageUtil;
import org.apache.kafka.common.record.internal.MemoryRecords;
import org.apache.kafka.common.record.internal.Record;
import org.apache.kafka.common.record.internal.RecordBatch;
import org.apache.kafka.common.requests.AbstractRequest;
import org.apache.kafka.common.requests.AbstractResponse;
import org.apache.kafka.common.requests.ApiVersionsRequest;
import org.apache.kafka.common.requests.ApiVersionsResponse;
import org.apache.kafka.common.requests.CreatePartitionsResponse;
import org.apache.kafka.common.requests.CreateTopicsResponse;
import org.apache.kafka.common.requests.DeleteRecordsResponse;
import org.apache.kafka.common.requests.DeleteTopicsResponse;
import org.apache.kafka.common.requests.DescribeClusterResponse;
import org.apache.kafka.common.requests.DescribeConfigsResponse;
import org.apache.kafka.common.requests.FetchResponse;
import org.apache.kafka.common.requests.IncrementalAlterConfigsResponse;
import org.apache.kafka.common.requests.InitProducerIdResponse;
import org.apache.kafka.common.requests.ListOffsetsRequest;
import org.apache.kafka.common.requests.ListOffsetsResponse;
import org.apache.kafka.common.requests.MetadataResponse;
import org.apache.kafka.common.requests.ProduceResponse;

/**
 * For each API the broker serves, the requests {@link ApiVersionMatrixTest} sends at one version and what their
 * answers must show where that version changes the meaning: offsets and leader epochs in ListOffsets, topics by
 * name or id in Fetch, Metadata and Produce, and so on. The group APIs are in {@link GroupExchanges}.
 *
 * <p>The last exchange of each list is the one at the version under test; earlier ones prepare it (a topic to
 * delete, a record to trim) at versions of their own. Names of what a version creates carry the version, so the
 * pairs are independent of each other and of their order.
 */
final class VersionedExchanges {
    static final String TOPIC = "matrix";
    static final int RECORDS = 3;
    static final String COMMITTED_GROUP = "matrix-committed";
    static final long COMMITTED_OFFSET = 2;

    /**
     * One request and what its answer must show. The request is built when it is sent, after the checks of the
     * exchanges before it ran, so it may use what their answers held (a member id, say).
     */
    record Exchange(Supplier<AbstractRequest> request, Consumer<AbstractResponse> check) {
        Exchange(AbstractRequest request, Consumer<AbstractResponse> check) {
            this(() -> request, check);
        }
    }

    @FunctionalInterface
    interface Case {
        List<Exchange> at(short version);
    }

    private final TestBroker broker;
    /** The port of the listener the exchanges go through: what the broker must advertise to them. */
    private final int port;

    private final Map<ApiKeys, Case> cases = new EnumMap<>(ApiKeys.class);

    VersionedExchanges(TestBroker broker, int port) {
        this.broker = broker;
        this.port = port;
        cases.put(ApiKeys.API_VERSIONS, this::apiVersions);
        cases.put(ApiKeys.METADATA, this::metadata);
        cases.put(ApiKeys.PRODUCE, this::produce);
        cases.put(ApiKeys.FETCH, this::fetch);
        cases.put(ApiKeys.LIST_OFFSETS, this::listOffsets);
        cases.put(ApiKeys.INIT_PRODUCER_ID, this::initProducerId);
        cases.put(ApiKeys.CREATE_TOPICS, this::createTopics);
        cases.put(ApiKeys.DELETE_TOPICS, this::deleteTopics);
        cases.put(ApiKeys.CREATE_PARTITIONS, this::createPartitions);
        cases.put(ApiKeys.DELETE_RECORDS, this::deleteRecords);
        cases.put(ApiKeys.DESCRIBE_CONFIGS, this::describeConfigs);
        cases.put(ApiKeys.INCREMENTAL_ALTER_CONFIGS, this::incrementalAlterConfigs);
        cases.put(ApiKeys.DESCRIBE_CLUSTER, this::describeCluster);
        new GroupExchanges(broker, port).addTo(cases);
        new TransactionExchanges().addTo(cases);
        new SecurityExchanges().addTo(cases);
    }

    boolean knows(ApiKeys api) {
        return cases.containsKey(api);
    }

    /**
     * The exchanges for {@code api} at {@code version}; an API without a case gets a request with every field at
     * its default, whose answer must still come back and decode.
     */
    List<Exchange> at(ApiKeys api, short version) {
        Case c = cases.get(api);
        if (c != null) {
            return c.at(version);
        }
        return List.of(new Exchange(request(api, api.messageType.newRequest(), version), response -> {}));
    }

    /** {@code data} as a request of version {@code v}, through the codec as it would travel. */
    static AbstractRequest request(ApiKeys api, ApiMessage data, short v) {
        return AbstractRequest.parseRequest(api, v, MessageUtil.toByteBufferAccessor(data, v)).request;
    }

    private Uuid topicId(String topic) {
        return LogContents.topicId(broker.broker(), topic);
    }

    private void createTopic(String name, int partitions) {
        try {
            broker.createTopic(name, partitions, Map.of());
        } catch (Exception e) {
            throw new IllegalStateException("creating " + name, e);
        }
    }

    private List<Exchange> apiVersions(short v) {
        return List.of(new Exchange(new ApiVersionsRequest.Builder().build(v), r -> {
            ApiVersionsResponse response = (ApiVersionsResponse) r;
            assertThat(Errors.forCode(response.data().errorCode())).isEqualTo(Errors.NONE);
            assertThat(response.apiVersion(ApiKeys.FETCH.id)).isNotNull();
            assertThat(response.apiVersion(ApiKeys.API_VERSIONS.id).maxVersion())
                    .isGreaterThanOrEqualTo(v);
        }));
    }

    private List<Exchange> metadata(short v) {
        List<Exchange> exchanges = new ArrayList<>();
        MetadataRequestData byName = new MetadataRequestData()
                .setTopics(List.of(new MetadataRequestData.MetadataRequestTopic().setName(TOPIC)))
                .setAllowAutoTopicCreation(true);
        exchanges.add(new Exchange(request(ApiKeys.METADATA, byName, v), r -> {
            MetadataResponse response = (MetadataResponse) r;
            assertThat(response.data().brokers()).singleElement().satisfies(b -> {
                assertThat(b.nodeId()).isEqualTo(broker.broker().node().nodeId());
                assertThat(b.port()).isEqualTo(port);
            });
            var topic = response.data().topics().find(TOPIC);
            assertThat(topic).as("topic %s in Metadata v%d", TOPIC, v).isNotNull();
            assertThat(Errors.forCode(topic.errorCode())).isEqualTo(Errors.NONE);
            assertThat(topic.partitions()).singleElement().satisfies(p -> {
                assertThat(p.leaderId()).isEqualTo(broker.broker().node().nodeId());
                assertThat(p.leaderEpoch()).isEqualTo(v >= 7 ? 0 : -1);
            });
            assertThat(topic.topicId()).isEqualTo(v >= 10 ? topicId(TOPIC) : Uuid.ZERO_UUID);
            if (v >= 2) {
                assertThat(response.data().clusterId())
                        .isEqualTo(broker.broker().node().clusterId());
            }
        }));
        if (v >= 10) {
            Uuid known = topicId(TOPIC);
            Uuid unknown = Uuid.randomUuid();
            MetadataRequestData byId = new MetadataRequestData()
                    .setTopics(List.of(
                            new MetadataRequestData.MetadataRequestTopic()
                                    .setName(null)
                                    .setTopicId(known),
                            new MetadataRequestData.MetadataRequestTopic()
                                    .setName(null)
                                    .setTopicId(unknown)));
            exchanges.add(new Exchange(request(ApiKeys.METADATA, byId, v), r -> {
                MetadataResponse response = (MetadataResponse) r;
                if (v < 12) {
                    // As Apache Kafka: versions 10 and 11 carry ids but may not ask by them (InvalidRequest),
                    // and their answer has no null name, so each topic comes back named "" with its id.
                    assertThat(response.data().topics())
                            .extracting(t -> t.name(), t -> t.topicId(), t -> Errors.forCode(t.errorCode()))
                            .containsExactlyInAnyOrder(
                                    org.assertj.core.groups.Tuple.tuple("", known, Errors.INVALID_REQUEST),
                                    org.assertj.core.groups.Tuple.tuple("", unknown, Errors.INVALID_REQUEST));
                } else {
                    assertThat(response.data().topics())
                            .extracting(t -> t.name(), t -> t.topicId(), t -> Errors.forCode(t.errorCode()))
                            .containsExactlyInAnyOrder(
                                    org.assertj.core.groups.Tuple.tuple(TOPIC, known, Errors.NONE),
                                    org.assertj.core.groups.Tuple.tuple(null, unknown, Errors.UNKNOWN_TOPIC_ID));
                }
            }));
        }
        return exchanges;
    }

    private List<Exchange> produce(short v) {
        String topic = "matrix-produce-v" + v;
        createTopic(topic, 1);
        RequestCorpus.Target target = new RequestCorpus.Target(topic, topicId(topic));
        List<Exchange> exchanges = new ArrayList<>();
        for (long expectedOffset = 0; expectedOffset < 2; expectedOffset++) {
            long offset = expectedOffset;
            MemoryRecords records = RequestCorpus.records("p" + offset, "v" + v);
            exchanges.add(new Exchange(RequestCorpus.produce(target, records, (short) -1, v), r -> {
                ProduceResponse response = (ProduceResponse) r;
                var topicResponse = response.data().responses().iterator().next();
                if (v >= 13) {
                    assertThat(topicResponse.topicId()).isEqualTo(target.id());
                } else {
                    assertThat(topicResponse.name()).isEqualTo(topic);
                }
                var partition = topicResponse.partitionResponses().getFirst();
                assertThat(Errors.forCode(partition.errorCode())).isEqualTo(Errors.NONE);
                assertThat(partition.baseOffset()).isEqualTo(offset);
                if (v >= 5) {
                    assertThat(partition.logStartOffset()).isZero();
                }
            }));
        }
        return exchanges;
    }

    private List<Exchange> fetch(short v) {
        RequestCorpus.Target target = new RequestCorpus.Target(TOPIC, topicId(TOPIC));
        return List.of(new Exchange(RequestCorpus.fetch(target, 1L, 10, v), r -> {
            FetchResponse response = (FetchResponse) r;
            assertThat(Errors.forCode(response.data().errorCode())).isEqualTo(Errors.NONE);
            var topicResponse = response.data().responses().getFirst();
            if (v >= 13) {
                assertThat(topicResponse.topicId()).isEqualTo(target.id());
            } else {
                assertThat(topicResponse.topic()).isEqualTo(TOPIC);
            }
            var partition = topicResponse.partitions().getFirst();
            assertThat(Errors.forCode(partition.errorCode())).isEqualTo(Errors.NONE);
            assertThat(partition.highWatermark()).isEqualTo(RECORDS);
            if (v >= 5) {
                assertThat(partition.logStartOffset()).isZero();
            }
            if (v >= 4) {
                assertThat(partition.lastStableOffset()).isEqualTo(RECORDS);
            }
            List<String> keys = new ArrayList<>();
            for (RecordBatch batch : ((MemoryRecords) partition.records()).batches()) {
                for (Record record : batch) {
                    if (record.offset() >= 1) {
                        keys.add(StandardCharsets.UTF_8.decode(record.key()).toString());
                    }
                }
            }
            assertThat(keys).containsExactly("k1", "k2");
        }));
    }

    private List<Exchange> listOffsets(short v) {
        List<Exchange> exchanges = new ArrayList<>();
        for (long timestamp : new long[] {ListOffsetsRequest.EARLIEST_TIMESTAMP, ListOffsetsRequest.LATEST_TIMESTAMP}) {
            ListOffsetsRequest request = ListOffsetsRequest.Builder.forConsumer(false, IsolationLevel.READ_UNCOMMITTED)
                    .setTargetTimes(List.of(new ListOffsetsRequestData.ListOffsetsTopic()
                            .setName(TOPIC)
                            .setPartitions(List.of(new ListOffsetsRequestData.ListOffsetsPartition()
                                    .setPartitionIndex(0)
                                    .setTimestamp(timestamp)))))
                    .build(v);
            long expected = timestamp == ListOffsetsRequest.EARLIEST_TIMESTAMP ? 0 : RECORDS;
            exchanges.add(new Exchange(request, r -> {
                var partition = ((ListOffsetsResponse) r)
                        .topics()
                        .getFirst()
                        .partitions()
                        .getFirst();
                assertThat(Errors.forCode(partition.errorCode())).isEqualTo(Errors.NONE);
                assertThat(partition.offset())
                        .as("ListOffsets v%d of %d", v, timestamp)
                        .isEqualTo(expected);
                assertThat(partition.leaderEpoch()).isEqualTo(v >= 4 ? 0 : -1);
            }));
        }
        return exchanges;
    }

    private List<Exchange> initProducerId(short v) {
        InitProducerIdRequestData data =
                new InitProducerIdRequestData().setTransactionalId(null).setTransactionTimeoutMs(60_000);
        return List.of(new Exchange(request(ApiKeys.INIT_PRODUCER_ID, data, v), r -> {
            var response = ((InitProducerIdResponse) r).data();
            assertThat(Errors.forCode(response.errorCode())).isEqualTo(Errors.NONE);
            assertThat(response.producerId()).isNotNegative();
            assertThat(response.producerEpoch()).isZero();
        }));
    }

    private static CreateTopicsRequestData creating(String topic, int partitions) {
        return new CreateTopicsRequestData()
                .setTimeoutMs(10_000)
                .setTopics(new CreateTopicsRequestData.CreatableTopicCollection(List.of(new CreatableTopic()
                                .setName(topic)
                                .setNumPartitions(partitions)
                                .setReplicationFactor((short) 1))
                        .iterator()));
    }

    private List<Exchange> createTopics(short v) {
        String topic = "matrix-created-v" + v;
        return List.of(new Exchange(request(ApiKeys.CREATE_TOPICS, creating(topic, 2), v), r -> {
            var result = ((CreateTopicsResponse) r).data().topics().find(topic);
            assertThat(Errors.forCode(result.errorCode())).isEqualTo(Errors.NONE);
            if (v >= 5) {
                assertThat(result.numPartitions()).isEqualTo(2);
                assertThat(result.replicationFactor()).isEqualTo((short) 1);
                assertThat(result.configs()).extracting(c -> c.name()).contains("cleanup.policy");
            }
            if (v >= 7) {
                assertThat(result.topicId()).isEqualTo(topicId(topic));
            }
            assertThat(broker.broker().logs().topic(topic)).isPresent();
        }));
    }

    private List<Exchange> deleteTopics(short v) {
        String topic = "matrix-deleted-v" + v;
        createTopic(topic, 1);
        DeleteTopicsRequestData data = new DeleteTopicsRequestData().setTimeoutMs(10_000);
        if (v >= 6) {
            data.setTopics(List.of(new DeleteTopicsRequestData.DeleteTopicState().setName(topic)));
        } else {
            data.setTopicNames(List.of(topic));
        }
        return List.of(new Exchange(request(ApiKeys.DELETE_TOPICS, data, v), r -> {
            var result = ((DeleteTopicsResponse) r).data().responses().find(topic);
            assertThat(Errors.forCode(result.errorCode())).isEqualTo(Errors.NONE);
            assertThat(broker.broker().logs().topic(topic)).isEmpty();
        }));
    }

    private List<Exchange> createPartitions(short v) {
        String topic = "matrix-grown-v" + v;
        createTopic(topic, 1);
        CreatePartitionsRequestData data = new CreatePartitionsRequestData()
                .setTimeoutMs(10_000)
                .setTopics(new CreatePartitionsRequestData.CreatePartitionsTopicCollection(
                        List.of(new CreatePartitionsRequestData.CreatePartitionsTopic()
                                        .setName(topic)
                                        .setCount(3)
                                        .setAssignments(null))
                                .iterator()));
        return List.of(new Exchange(request(ApiKeys.CREATE_PARTITIONS, data, v), r -> {
            var result = ((CreatePartitionsResponse) r).data().results().getFirst();
            assertThat(result.name()).isEqualTo(topic);
            assertThat(Errors.forCode(result.errorCode())).isEqualTo(Errors.NONE);
            assertThat(broker.broker().logs().topic(topic).orElseThrow().partitions())
                    .isEqualTo(3);
        }));
    }

    private List<Exchange> deleteRecords(short v) {
        String topic = "matrix-trimmed-v" + v;
        createTopic(topic, 1);
        RequestCorpus.Target target = new RequestCorpus.Target(topic, topicId(topic));
        Map<Integer, MemoryRecords> twoBatches = Map.of(0, RequestCorpus.records("a", "1"));
        AbstractRequest first = RequestCorpus.produce(target, twoBatches, (short) -1, (short) 9);
        AbstractRequest second = RequestCorpus.produce(target, twoBatches, (short) -1, (short) 9);
        DeleteRecordsRequestData data = new DeleteRecordsRequestData()
                .setTimeoutMs(10_000)
                .setTopics(List.of(new DeleteRecordsRequestData.DeleteRecordsTopic()
                        .setName(topic)
                        .setPartitions(List.of(new DeleteRecordsRequestData.DeleteRecordsPartition()
                                .setPartitionIndex(0)
                                .setOffset(1)))));
        return List.of(
                new Exchange(first, r -> {}),
                new Exchange(second, r -> {}),
                new Exchange(request(ApiKeys.DELETE_RECORDS, data, v), r -> {
                    var partition = ((DeleteRecordsResponse) r)
                            .data()
                            .topics()
                            .find(topic)
                            .partitions()
                            .find(0);
                    assertThat(Errors.forCode(partition.errorCode())).isEqualTo(Errors.NONE);
                    assertThat(partition.lowWatermark()).isEqualTo(1);
                }));
    }

    private List<Exchange> describeConfigs(short v) {
        DescribeConfigsRequestData data = new DescribeConfigsRequestData()
                .setResources(List.of(new DescribeConfigsRequestData.DescribeConfigsResource()
                        .setResourceType((byte) 2)
                        .setResourceName(TOPIC)
                        .setConfigurationKeys(null)));
        return List.of(new Exchange(request(ApiKeys.DESCRIBE_CONFIGS, data, v), r -> {
            var result = ((DescribeConfigsResponse) r).data().results().getFirst();
            assertThat(Errors.forCode(result.errorCode())).isEqualTo(Errors.NONE);
            assertThat(result.resourceName()).isEqualTo(TOPIC);
            assertThat(result.configs())
                    .filteredOn(c -> c.name().equals("cleanup.policy"))
                    .singleElement()
                    .satisfies(c -> assertThat(c.value()).isEqualTo("delete"));
        }));
    }

    private List<Exchange> incrementalAlterConfigs(short v) {
        String topic = "matrix-altered-v" + v;
        createTopic(topic, 1);
        var configs = new IncrementalAlterConfigsRequestData.AlterableConfigCollection();
        configs.add(new IncrementalAlterConfigsRequestData.AlterableConfig()
                .setName("retention.ms")
                .setConfigOperation((byte) 0)
                .setValue("3600000"));
        var resources = new IncrementalAlterConfigsRequestData.AlterConfigsResourceCollection();
        resources.add(new IncrementalAlterConfigsRequestData.AlterConfigsResource()
                .setResourceType((byte) 2)
                .setResourceName(topic)
                .setConfigs(configs));
        IncrementalAlterConfigsRequestData data = new IncrementalAlterConfigsRequestData().setResources(resources);
        return List.of(new Exchange(request(ApiKeys.INCREMENTAL_ALTER_CONFIGS, data, v), r -> {
            var result =
                    ((IncrementalAlterConfigsResponse) r).data().responses().getFirst();
            assertThat(Errors.forCode(result.errorCode())).isEqualTo(Errors.NONE);
            assertThat(result.resourceName()).isEqualTo(topic);
            assertThat(broker.broker().logs().topic(topic).orElseThrow().overrides())
                    .containsEntry("retention.ms", "3600000");
        }));
    }

    private List<Exchange> describeCluster(short v) {
        return List.of(new Exchange(request(ApiKeys.DESCRIBE_CLUSTER, new DescribeClusterRequestData(), v), r -> {
            var response = ((DescribeClusterResponse) r).data();
            assertThat(Errors.forCode(response.errorCode())).isEqualTo(Errors.NONE);
            assertThat(response.clusterId()).isEqualTo(broker.broker().node().clusterId());
            assertThat(response.brokers()).singleElement().satisfies(b -> {
                assertThat(b.brokerId()).isEqualTo(broker.broker().node().nodeId());
                assertThat(b.port()).isEqualTo(port);
            });
        }));
    }
}
