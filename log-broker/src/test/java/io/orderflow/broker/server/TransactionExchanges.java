package io.orderflow.broker.server;

import static io.orderflow.broker.server.VersionedExchanges.request;
import static org.assertj.core.api.Assertions.assertThat;

import io.orderflow.broker.server.VersionedExchanges.Case;
import io.orderflow.broker.server.VersionedExchanges.Exchange;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.kafka.common.message.AddOffsetsToTxnRequestData;
import org.apache.kafka.common.message.AddPartitionsToTxnRequestData;
import org.apache.kafka.common.message.AddPartitionsToTxnRequestData.AddPartitionsToTxnTopic;
import org.apache.kafka.common.message.AddPartitionsToTxnRequestData.AddPartitionsToTxnTopicCollection;
import org.apache.kafka.common.message.DescribeProducersRequestData;
import org.apache.kafka.common.message.DescribeTransactionsRequestData;
import org.apache.kafka.common.message.EndTxnRequestData;
import org.apache.kafka.common.message.InitProducerIdRequestData;
import org.apache.kafka.common.message.ListTransactionsRequestData;
import org.apache.kafka.common.message.TxnOffsetCommitRequestData;
import org.apache.kafka.common.message.TxnOffsetCommitRequestData.TxnOffsetCommitRequestPartition;
import org.apache.kafka.common.message.TxnOffsetCommitRequestData.TxnOffsetCommitRequestTopic;
import org.apache.kafka.common.message.WriteTxnMarkersRequestData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.requests.AddOffsetsToTxnResponse;
import org.apache.kafka.common.requests.AddPartitionsToTxnResponse;
import org.apache.kafka.common.requests.DescribeProducersResponse;
import org.apache.kafka.common.requests.DescribeTransactionsResponse;
import org.apache.kafka.common.requests.EndTxnResponse;
import org.apache.kafka.common.requests.InitProducerIdResponse;
import org.apache.kafka.common.requests.ListTransactionsResponse;
import org.apache.kafka.common.requests.TxnOffsetCommitResponse;
import org.apache.kafka.common.requests.WriteTxnMarkersResponse;

/**
 * The transaction APIs' exchanges for {@link ApiVersionMatrixTest}: each version under test runs inside a transaction
 * of its own transactional id ({@code matrix-<api>-v<version>}), begun by InitProducerId at the latest version, so
 * the answer checked is the one a producer at that version gets in the middle of a real transaction.
 */
final class TransactionExchanges {
    private static final short INIT_VERSION = 5;
    private static final short ADD_PARTITIONS_VERSION = 3;
    private static final short ADD_OFFSETS_VERSION = 4;

    void addTo(Map<ApiKeys, Case> cases) {
        cases.put(ApiKeys.ADD_PARTITIONS_TO_TXN, this::addPartitions);
        cases.put(ApiKeys.ADD_OFFSETS_TO_TXN, this::addOffsets);
        cases.put(ApiKeys.END_TXN, this::endTxn);
        cases.put(ApiKeys.TXN_OFFSET_COMMIT, this::txnOffsetCommit);
        cases.put(ApiKeys.DESCRIBE_TRANSACTIONS, this::describe);
        cases.put(ApiKeys.LIST_TRANSACTIONS, this::list);
        cases.put(ApiKeys.DESCRIBE_PRODUCERS, this::describeProducers);
        cases.put(ApiKeys.WRITE_TXN_MARKERS, this::writeTxnMarkers);
    }

    private List<Exchange> describeProducers(short v) {
        var topics = new DescribeProducersRequestData.TopicRequestCollection();
        topics.add(new DescribeProducersRequestData.TopicRequest()
                .setName(VersionedExchanges.TOPIC)
                .setPartitionIndexes(List.of(0, 99)));
        var request = new DescribeProducersRequestData().setTopics(topics);
        return List.of(new Exchange(request(ApiKeys.DESCRIBE_PRODUCERS, request, v), r -> {
            var partitions =
                    ((DescribeProducersResponse) r).data().topics().getFirst().partitions();
            assertThat(Errors.forCode(partitions.get(0).errorCode())).isEqualTo(Errors.NONE);
            assertThat(partitions.get(0).activeProducers())
                    .as("the idempotent producer that wrote the records")
                    .isNotEmpty()
                    .allSatisfy(p -> assertThat(p.producerId()).isNotNegative());
            assertThat(Errors.forCode(partitions.get(1).errorCode())).isEqualTo(Errors.UNKNOWN_TOPIC_OR_PARTITION);
        }));
    }

    private List<Exchange> writeTxnMarkers(short v) {
        var marker = new WriteTxnMarkersRequestData.WritableTxnMarker()
                .setProducerId(900_000 + v)
                .setProducerEpoch((short) 0)
                .setTransactionResult(false)
                .setCoordinatorEpoch(0)
                .setTopics(List.of(new WriteTxnMarkersRequestData.WritableTxnMarkerTopic()
                        .setName(VersionedExchanges.TOPIC)
                        .setPartitionIndexes(List.of(0))));
        var request = new WriteTxnMarkersRequestData().setMarkers(List.of(marker));
        return List.of(new Exchange(request(ApiKeys.WRITE_TXN_MARKERS, request, v), r -> {
            var result = ((WriteTxnMarkersResponse) r).data().markers().getFirst();
            assertThat(result.producerId()).isEqualTo(900_000 + v);
            assertThat(Errors.forCode(
                            result.topics().getFirst().partitions().getFirst().errorCode()))
                    .isEqualTo(Errors.NONE);
        }));
    }

    /** The id's producer: InitProducerId's answer, which the later requests of the transaction carry. */
    private record Producer(String transactionalId, AtomicLong producerId, AtomicLong epoch) {
        Producer(String transactionalId) {
            this(transactionalId, new AtomicLong(-1), new AtomicLong(-1));
        }

        short epochValue() {
            return (short) epoch.get();
        }
    }

    private static Exchange init(Producer p) {
        InitProducerIdRequestData data = new InitProducerIdRequestData()
                .setTransactionalId(p.transactionalId())
                .setTransactionTimeoutMs(60_000);
        return new Exchange(request(ApiKeys.INIT_PRODUCER_ID, data, INIT_VERSION), r -> {
            var response = ((InitProducerIdResponse) r).data();
            assertThat(Errors.forCode(response.errorCode())).isEqualTo(Errors.NONE);
            p.producerId().set(response.producerId());
            p.epoch().set(response.producerEpoch());
        });
    }

    private static Exchange addPartitions(Producer p, short v) {
        return new Exchange(
                () -> {
                    var topics = new AddPartitionsToTxnTopicCollection();
                    topics.add(new AddPartitionsToTxnTopic()
                            .setName(VersionedExchanges.TOPIC)
                            .setPartitions(List.of(0)));
                    return request(
                            ApiKeys.ADD_PARTITIONS_TO_TXN,
                            new AddPartitionsToTxnRequestData()
                                    .setV3AndBelowTransactionalId(p.transactionalId())
                                    .setV3AndBelowProducerId(p.producerId().get())
                                    .setV3AndBelowProducerEpoch(p.epochValue())
                                    .setV3AndBelowTopics(topics),
                            v);
                },
                r -> assertThat(((AddPartitionsToTxnResponse) r)
                                .errors()
                                .get(AddPartitionsToTxnResponse.V3_AND_BELOW_TXN_ID)
                                .values())
                        .as("AddPartitionsToTxn v%d", v)
                        .containsOnly(Errors.NONE));
    }

    private static Exchange addOffsets(Producer p, String group, short v) {
        return new Exchange(
                () -> request(
                        ApiKeys.ADD_OFFSETS_TO_TXN,
                        new AddOffsetsToTxnRequestData()
                                .setTransactionalId(p.transactionalId())
                                .setProducerId(p.producerId().get())
                                .setProducerEpoch(p.epochValue())
                                .setGroupId(group),
                        v),
                r -> assertThat(Errors.forCode(
                                ((AddOffsetsToTxnResponse) r).data().errorCode()))
                        .as("AddOffsetsToTxn v%d", v)
                        .isEqualTo(Errors.NONE));
    }

    private List<Exchange> addPartitions(short v) {
        Producer p = new Producer("matrix-add-partitions-v" + v);
        return List.of(init(p), addPartitions(p, v));
    }

    private List<Exchange> addOffsets(short v) {
        Producer p = new Producer("matrix-add-offsets-v" + v);
        return List.of(init(p), addOffsets(p, "matrix-txn-group-v" + v, v));
    }

    private List<Exchange> endTxn(short v) {
        Producer p = new Producer("matrix-end-txn-v" + v);
        List<Exchange> exchanges = new ArrayList<>(List.of(init(p), addPartitions(p, ADD_PARTITIONS_VERSION)));
        exchanges.add(new Exchange(
                () -> request(
                        ApiKeys.END_TXN,
                        new EndTxnRequestData()
                                .setTransactionalId(p.transactionalId())
                                .setProducerId(p.producerId().get())
                                .setProducerEpoch(p.epochValue())
                                .setCommitted(v % 2 == 0),
                        v),
                r -> assertThat(Errors.forCode(((EndTxnResponse) r).data().errorCode()))
                        .as("EndTxn v%d", v)
                        .isEqualTo(Errors.NONE)));
        return exchanges;
    }

    private List<Exchange> txnOffsetCommit(short v) {
        Producer p = new Producer("matrix-txn-offset-commit-v" + v);
        String group = "matrix-txn-offsets-v" + v;
        List<Exchange> exchanges = new ArrayList<>(List.of(init(p), addOffsets(p, group, ADD_OFFSETS_VERSION)));
        exchanges.add(new Exchange(
                () -> request(
                        ApiKeys.TXN_OFFSET_COMMIT,
                        new TxnOffsetCommitRequestData()
                                .setTransactionalId(p.transactionalId())
                                .setGroupId(group)
                                .setProducerId(p.producerId().get())
                                .setProducerEpoch(p.epochValue())
                                .setTopics(List.of(new TxnOffsetCommitRequestTopic()
                                        .setName(VersionedExchanges.TOPIC)
                                        .setPartitions(List.of(new TxnOffsetCommitRequestPartition()
                                                .setPartitionIndex(0)
                                                .setCommittedOffset(1)
                                                .setCommittedMetadata("matrix"))))),
                        v),
                r -> assertThat(((TxnOffsetCommitResponse) r).errorCounts())
                        .as("TxnOffsetCommit v%d", v)
                        .containsOnlyKeys(Errors.NONE)));
        return exchanges;
    }

    private List<Exchange> describe(short v) {
        Producer p = new Producer("matrix-describe-v" + v);
        return List.of(
                init(p),
                addPartitions(p, ADD_PARTITIONS_VERSION),
                new Exchange(
                        request(
                                ApiKeys.DESCRIBE_TRANSACTIONS,
                                new DescribeTransactionsRequestData()
                                        .setTransactionalIds(List.of(p.transactionalId(), "matrix-unknown")),
                                v),
                        r -> {
                            var states =
                                    ((DescribeTransactionsResponse) r).data().transactionStates();
                            assertThat(states).hasSize(2);
                            var known = states.getFirst();
                            assertThat(Errors.forCode(known.errorCode())).isEqualTo(Errors.NONE);
                            assertThat(known.transactionState()).isEqualTo("Ongoing");
                            assertThat(known.producerId())
                                    .isEqualTo(p.producerId().get());
                            assertThat(known.topics()).singleElement().satisfies(t -> {
                                assertThat(t.topic()).isEqualTo(VersionedExchanges.TOPIC);
                                assertThat(t.partitions()).containsExactly(0);
                            });
                            assertThat(Errors.forCode(states.get(1).errorCode()))
                                    .isEqualTo(Errors.TRANSACTIONAL_ID_NOT_FOUND);
                        }));
    }

    private List<Exchange> list(short v) {
        Producer p = new Producer("matrix-list-v" + v);
        return List.of(
                init(p),
                addPartitions(p, ADD_PARTITIONS_VERSION),
                new Exchange(
                        () -> {
                            var data = new ListTransactionsRequestData()
                                    .setStateFilters(List.of("Ongoing", "NoSuchState"))
                                    .setProducerIdFilters(List.of(p.producerId().get()));
                            if (v >= 1) {
                                data.setDurationFilter(0);
                            }
                            if (v >= 2) {
                                data.setTransactionalIdPattern("matrix-list-.*");
                            }
                            return request(ApiKeys.LIST_TRANSACTIONS, data, v);
                        },
                        r -> {
                            var data = ((ListTransactionsResponse) r).data();
                            assertThat(Errors.forCode(data.errorCode())).isEqualTo(Errors.NONE);
                            assertThat(data.unknownStateFilters()).containsExactly("NoSuchState");
                            assertThat(data.transactionStates()).singleElement().satisfies(t -> {
                                assertThat(t.transactionalId()).isEqualTo(p.transactionalId());
                                assertThat(t.transactionState()).isEqualTo("Ongoing");
                            });
                        }));
    }
}
