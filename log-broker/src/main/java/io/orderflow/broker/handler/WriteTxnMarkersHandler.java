package io.orderflow.broker.handler;

import io.orderflow.broker.log.LogDirectory;
import io.orderflow.broker.log.LogException;
import io.orderflow.broker.log.PartitionLog;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.apache.kafka.common.acl.AclOperation;
import org.apache.kafka.common.message.WriteTxnMarkersRequestData;
import org.apache.kafka.common.message.WriteTxnMarkersResponseData;
import org.apache.kafka.common.message.WriteTxnMarkersResponseData.WritableTxnMarkerPartitionResult;
import org.apache.kafka.common.message.WriteTxnMarkersResponseData.WritableTxnMarkerResult;
import org.apache.kafka.common.message.WriteTxnMarkersResponseData.WritableTxnMarkerTopicResult;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.requests.AbstractResponse;
import org.apache.kafka.common.requests.WriteTxnMarkersRequest;
import org.apache.kafka.common.requests.WriteTxnMarkersResponse;

/**
 * WriteTxnMarkers, as {@code kafka-transactions.sh abort} (the admin client's {@code abortTransaction}) sends it: writes
 * each marker to its partitions and answers once they are durable. It is how an operator ends a hanging transaction
 * (open in a partition, unknown to the coordinator); the broker's own coordinator writes its markers without it.
 * CLUSTER_ACTION on the cluster, else CLUSTER_AUTHORIZATION_FAILED for every partition, as Kafka checks; an older
 * epoch than the producer's in a partition is INVALID_PRODUCER_EPOCH there.
 */
public final class WriteTxnMarkersHandler implements ApiHandler<WriteTxnMarkersRequest> {
    private static final long DURABLE_WAIT_MS = 30_000;

    private final LogDirectory logs;
    private final Permissions permissions;

    public WriteTxnMarkersHandler(LogDirectory logs, Permissions permissions) {
        this.logs = logs;
        this.permissions = permissions;
    }

    @Override
    public AbstractResponse handle(ClientInfo client, WriteTxnMarkersRequest request) {
        boolean authorized = permissions.allowsCluster(client, AclOperation.CLUSTER_ACTION);
        WriteTxnMarkersResponseData response = new WriteTxnMarkersResponseData();
        for (WriteTxnMarkersRequestData.WritableTxnMarker marker :
                request.data().markers()) {
            WritableTxnMarkerResult result = new WritableTxnMarkerResult().setProducerId(marker.producerId());
            response.markers().add(result);
            Map<WritableTxnMarkerPartitionResult, CompletableFuture<Void>> written = new LinkedHashMap<>();
            for (WriteTxnMarkersRequestData.WritableTxnMarkerTopic topic : marker.topics()) {
                WritableTxnMarkerTopicResult topicResult = new WritableTxnMarkerTopicResult().setName(topic.name());
                result.topics().add(topicResult);
                for (int index : topic.partitionIndexes()) {
                    WritableTxnMarkerPartitionResult partition =
                            new WritableTxnMarkerPartitionResult().setPartitionIndex(index);
                    topicResult.partitions().add(partition);
                    if (!authorized) {
                        partition.setErrorCode(Errors.CLUSTER_AUTHORIZATION_FAILED.code());
                        continue;
                    }
                    Optional<PartitionLog> log = logs.partition(topic.name(), index);
                    if (log.isEmpty()) {
                        partition.setErrorCode(Errors.UNKNOWN_TOPIC_OR_PARTITION.code());
                        continue;
                    }
                    try {
                        long offset = log.get()
                                .appendMarker(
                                        marker.producerId(),
                                        marker.producerEpoch(),
                                        marker.transactionResult(),
                                        marker.coordinatorEpoch());
                        written.put(partition, log.get().awaitDurable(offset + 1));
                        partition.setErrorCode(Errors.NONE.code());
                    } catch (LogException e) {
                        partition.setErrorCode(ErrorTable.errorFor(e).code());
                    }
                }
            }
            written.forEach((partition, durable) -> {
                try {
                    durable.get(DURABLE_WAIT_MS, TimeUnit.MILLISECONDS);
                } catch (ExecutionException e) {
                    partition.setErrorCode(ErrorTable.errorFor(e.getCause()).code());
                } catch (TimeoutException e) {
                    partition.setErrorCode(Errors.REQUEST_TIMED_OUT.code());
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    partition.setErrorCode(Errors.REQUEST_TIMED_OUT.code());
                }
            });
        }
        return new WriteTxnMarkersResponse(response);
    }
}
