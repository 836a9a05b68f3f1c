package io.orderflow.ops.drill;

import io.orderflow.kafka.KafkaClientSettings;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.DescribeClusterOptions;

/**
 * Whether the cluster answers a Kafka client right now: DescribeCluster with a 2 s deadline, through one admin client
 * that reconnects by itself. What a drill waits on when something other than the drill brings a broker back.
 */
final class BrokerPing implements AutoCloseable {
    private static final int TIMEOUT_MS = 2_000;

    private final Admin admin;

    BrokerPing(KafkaClientSettings cluster) {
        this.admin = Admin.create(cluster.admin(Map.of(
                AdminClientConfig.REQUEST_TIMEOUT_MS_CONFIG, TIMEOUT_MS,
                AdminClientConfig.DEFAULT_API_TIMEOUT_MS_CONFIG, TIMEOUT_MS,
                AdminClientConfig.RECONNECT_BACKOFF_MAX_MS_CONFIG, 500)));
    }

    boolean answers() {
        try {
            admin.describeCluster(new DescribeClusterOptions().timeoutMs(TIMEOUT_MS))
                    .clusterId()
                    .get(TIMEOUT_MS + 1_000L, TimeUnit.MILLISECONDS);
            return true;
        } catch (ExecutionException | TimeoutException e) {
            return false;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return false;
        }
    }

    @Override
    public void close() {
        admin.close(java.time.Duration.ofSeconds(5));
    }
}
