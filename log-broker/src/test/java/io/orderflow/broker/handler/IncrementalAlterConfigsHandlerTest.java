package io.orderflow.broker.handler;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.orderflow.broker.log.LogConfig;
import io.orderflow.broker.log.PartitionLog;
import io.orderflow.broker.server.TestBroker;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AlterConfigOp;
import org.apache.kafka.clients.admin.AlterConfigOp.OpType;
import org.apache.kafka.clients.admin.AlterConfigsOptions;
import org.apache.kafka.clients.admin.ConfigEntry;
import org.apache.kafka.clients.admin.ConfigEntry.ConfigSource;
import org.apache.kafka.common.config.ConfigResource;
import org.apache.kafka.common.errors.InvalidConfigurationException;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** IncrementalAlterConfigs through the stock admin client, over TCP, checked with DescribeConfigs. */
class IncrementalAlterConfigsHandlerTest {
    private static final ConfigResource ORDERS = new ConfigResource(ConfigResource.Type.TOPIC, "orders");

    @TempDir
    Path dataDir;

    private TestBroker broker;
    private Admin admin;

    @BeforeEach
    void start() throws Exception {
        broker = TestBroker.start(dataDir);
        admin = broker.admin();
        broker.createTopic("orders", 2, Map.of());
    }

    @AfterEach
    void stop() {
        admin.close();
        broker.close();
    }

    @Test
    void setOverridesTakeEffectAtOnceAndSurviveARestart() throws Exception {
        alter(
                false,
                op(OpType.SET, "retention.ms", "60000"),
                op(OpType.SET, "segment.bytes", "4096"),
                op(OpType.SET, "flush.messages", "100"));

        assertThat(entry("retention.ms").value()).isEqualTo("60000");
        assertThat(entry("retention.ms").source()).isEqualTo(ConfigSource.DYNAMIC_TOPIC_CONFIG);
        for (int p = 0; p < 2; p++) {
            LogConfig applied = partition(p).config();
            assertThat(applied.retentionMs()).isEqualTo(60_000);
            assertThat(applied.segmentBytes()).isEqualTo(4096);
            assertThat(applied.flushPolicy().messages()).isEqualTo(100);
        }

        admin.close();
        broker.restart();
        admin = broker.admin();
        assertThat(entry("segment.bytes").value()).isEqualTo("4096");
        assertThat(partition(1).config().segmentBytes()).isEqualTo(4096);
    }

    @Test
    void deleteFallsBackToTheBrokerDefault() throws Exception {
        alter(false, op(OpType.SET, "retention.ms", "60000"));

        alter(false, op(OpType.DELETE, "retention.ms", null));

        ConfigEntry retention = entry("retention.ms");
        assertThat(retention.value()).isEqualTo("604800000");
        assertThat(retention.source()).isEqualTo(ConfigSource.DEFAULT_CONFIG);
        assertThat(partition(0).config().retentionMs()).isEqualTo(604_800_000L);
    }

    @Test
    void validateOnlyChecksButChangesNothing() throws Exception {
        alter(true, op(OpType.SET, "retention.ms", "60000"));

        assertThat(entry("retention.ms").source()).isEqualTo(ConfigSource.DEFAULT_CONFIG);
        assertThat(partition(0).config().retentionMs()).isEqualTo(604_800_000L);
        assertThatThrownBy(() -> alter(true, op(OpType.SET, "retention.ms", "soon")))
                .hasCauseInstanceOf(InvalidConfigurationException.class);
    }

    @Test
    void unknownKeysAndBadValuesAreInvalidConfigNamingTheKey() {
        assertThatThrownBy(() -> alter(false, op(OpType.SET, "retention.hours", "1")))
                .isInstanceOf(ExecutionException.class)
                .hasCauseInstanceOf(InvalidConfigurationException.class)
                .hasMessageContaining("retention.hours");
        assertThatThrownBy(() -> alter(false, op(OpType.SET, "segment.bytes", "big")))
                .hasCauseInstanceOf(InvalidConfigurationException.class)
                .hasMessageContaining("segment.bytes")
                .hasMessageContaining("big");
    }

    @Test
    void theOnlyTimestampTypeIsCreateTime() throws Exception {
        alter(false, op(OpType.SET, "message.timestamp.type", "CreateTime"));
        assertThatThrownBy(() -> alter(false, op(OpType.SET, "message.timestamp.type", "LogAppendTime")))
                .hasCauseInstanceOf(InvalidConfigurationException.class)
                .hasMessageContaining("message.timestamp.type")
                .hasMessageContaining("LogAppendTime is not supported");
    }

    @Test
    void aRejectedChangeLeavesTheOtherChangesOfItsResourceUndone() throws Exception {
        assertThatThrownBy(
                        () -> alter(false, op(OpType.SET, "retention.ms", "60000"), op(OpType.SET, "segment.ms", "0")))
                .hasCauseInstanceOf(InvalidConfigurationException.class)
                .hasMessageContaining("segment.ms");

        assertThat(entry("retention.ms").source()).isEqualTo(ConfigSource.DEFAULT_CONFIG);
    }

    @Test
    void appendAndSubtractEditListConfigsOnly() throws Exception {
        alter(false, op(OpType.APPEND, "cleanup.policy", "compact"));
        assertThat(entry("cleanup.policy").value()).isEqualTo("compact,delete");

        alter(false, op(OpType.SUBTRACT, "cleanup.policy", "delete"));
        assertThat(entry("cleanup.policy").value()).isEqualTo("compact");
        assertThat(partition(0).config().cleanupPolicy()).isEqualTo(LogConfig.CleanupPolicy.COMPACT);

        assertThatThrownBy(() -> alter(false, op(OpType.APPEND, "retention.ms", "1")))
                .hasCauseInstanceOf(InvalidConfigurationException.class)
                .hasMessageContaining("retention.ms");
    }

    @Test
    void brokerConfigsAreReadOnly() {
        ConfigResource brokerOne = new ConfigResource(ConfigResource.Type.BROKER, "1");
        assertThatThrownBy(() -> admin.incrementalAlterConfigs(
                                Map.of(brokerOne, List.of(op(OpType.SET, "log.retention.ms", "1000"))))
                        .all()
                        .get(30, TimeUnit.SECONDS))
                .hasCauseInstanceOf(InvalidConfigurationException.class)
                .hasMessageContaining("log.retention.ms");
    }

    private static AlterConfigOp op(OpType type, String key, String value) {
        return new AlterConfigOp(new ConfigEntry(key, value), type);
    }

    private void alter(boolean validateOnly, AlterConfigOp... ops) throws Exception {
        admin.incrementalAlterConfigs(
                        Map.of(ORDERS, List.of(ops)), new AlterConfigsOptions().validateOnly(validateOnly))
                .all()
                .get(30, TimeUnit.SECONDS);
    }

    private ConfigEntry entry(String key) throws Exception {
        return admin.describeConfigs(List.of(ORDERS))
                .all()
                .get(30, TimeUnit.SECONDS)
                .get(ORDERS)
                .get(key);
    }

    private PartitionLog partition(int p) {
        return broker.broker().logs().partition("orders", p).orElseThrow();
    }
}
