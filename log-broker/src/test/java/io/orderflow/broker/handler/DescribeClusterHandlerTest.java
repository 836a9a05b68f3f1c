package io.orderflow.broker.handler;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.orderflow.broker.server.TestBroker;
import java.nio.file.Path;
import java.util.Collection;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.DescribeClusterOptions;
import org.apache.kafka.clients.admin.DescribeClusterResult;
import org.apache.kafka.common.Node;
import org.apache.kafka.common.acl.AclOperation;
import org.apache.kafka.common.errors.MismatchedEndpointTypeException;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** DescribeCluster through the stock admin client, over TCP. */
class DescribeClusterHandlerTest {
    @TempDir
    Path dataDir;

    private TestBroker broker;

    @BeforeEach
    void start() {
        broker = TestBroker.start(dataDir);
    }

    @AfterEach
    void stop() {
        broker.close();
    }

    @Test
    void theClusterIsThisOneNodeWhichIsAlsoTheController() throws Exception {
        try (Admin admin = broker.admin()) {
            DescribeClusterResult cluster =
                    admin.describeCluster(new DescribeClusterOptions().includeAuthorizedOperations(true));

            Collection<Node> nodes = cluster.nodes().get(30, TimeUnit.SECONDS);
            assertThat(nodes).singleElement().satisfies(node -> {
                assertThat(node.id()).isEqualTo(1);
                assertThat(node.host()).isEqualTo("127.0.0.1");
                assertThat(node.port()).isEqualTo(broker.broker().port());
                assertThat(node.hasRack()).isFalse();
                assertThat(node.isFenced()).isFalse();
            });
            assertThat(cluster.controller().get(30, TimeUnit.SECONDS).id()).isEqualTo(1);
            assertThat(cluster.clusterId().get(30, TimeUnit.SECONDS))
                    .isEqualTo(broker.broker().node().clusterId());
            assertThat(cluster.authorizedOperations().get(30, TimeUnit.SECONDS))
                    .contains(AclOperation.DESCRIBE, AclOperation.ALTER_CONFIGS, AclOperation.CREATE);
        }
    }

    @Test
    void clustersStayTheSameAcrossRestarts() throws Exception {
        String before;
        try (Admin admin = broker.admin()) {
            before = admin.describeCluster().clusterId().get(30, TimeUnit.SECONDS);
        }
        broker.restart();
        try (Admin admin = broker.admin()) {
            assertThat(admin.describeCluster().clusterId().get(30, TimeUnit.SECONDS))
                    .isEqualTo(before);
        }
    }

    @Test
    void refusesToAnswerAsAController() {
        try (Admin admin = Admin.create(Map.of(
                AdminClientConfig.BOOTSTRAP_CONTROLLERS_CONFIG, broker.bootstrap(),
                AdminClientConfig.DEFAULT_API_TIMEOUT_MS_CONFIG, "10000",
                AdminClientConfig.REQUEST_TIMEOUT_MS_CONFIG, "5000"))) {
            assertThatThrownBy(() -> admin.describeCluster().clusterId().get(30, TimeUnit.SECONDS))
                    .hasRootCauseInstanceOf(MismatchedEndpointTypeException.class);
        }
    }
}
