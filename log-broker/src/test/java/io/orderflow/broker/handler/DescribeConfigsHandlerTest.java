package io.orderflow.broker.handler;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.orderflow.broker.log.LogConfig;
import io.orderflow.broker.server.TestBroker;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.Config;
import org.apache.kafka.clients.admin.ConfigEntry;
import org.apache.kafka.clients.admin.ConfigEntry.ConfigSource;
import org.apache.kafka.clients.admin.DescribeConfigsOptions;
import org.apache.kafka.common.config.ConfigResource;
import org.apache.kafka.common.errors.InvalidRequestException;
import org.apache.kafka.common.errors.UnknownTopicOrPartitionException;
import org.apache.kafka.common.message.DescribeConfigsRequestData;
import org.apache.kafka.common.message.DescribeConfigsResponseData;
import org.apache.kafka.common.requests.DescribeConfigsRequest;
import org.apache.kafka.common.requests.DescribeConfigsResponse;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * DescribeConfigs through the stock admin client, over TCP, against a broker whose configuration sets
 * {@code log.retention.ms} (so topics inherit a static broker value) and leaves the rest at the built-in
 * defaults.
 */
class DescribeConfigsHandlerTest {
    private static final DescribeConfigsOptions EVERYTHING =
            new DescribeConfigsOptions().includeSynonyms(true).includeDocumentation(true);

    @TempDir
    Path dataDir;

    private TestBroker broker;
    private Admin admin;

    @BeforeEach
    void start() {
        broker = TestBroker.start(dataDir, Map.of("log.retention.ms", "3600000"));
        admin = broker.admin();
    }

    @AfterEach
    void stop() {
        admin.close();
        broker.close();
    }

    @Test
    void describesEveryTopicConfigWithItsSource() throws Exception {
        broker.createTopic("orders", 1, Map.of("segment.bytes", "1048576"));

        Config config = describe(new ConfigResource(ConfigResource.Type.TOPIC, "orders"), EVERYTHING);

        assertThat(config.entries()).extracting(ConfigEntry::name).containsExactlyInAnyOrderElementsOf(LogConfig.KEYS);
        ConfigEntry override = config.get("segment.bytes");
        assertThat(override.value()).isEqualTo("1048576");
        assertThat(override.source()).isEqualTo(ConfigSource.DYNAMIC_TOPIC_CONFIG);
        assertThat(override.isDefault()).isFalse();
        assertThat(override.isReadOnly()).isFalse();
        assertThat(override.type()).isEqualTo(ConfigEntry.ConfigType.INT);
        assertThat(override.synonyms())
                .extracting(s -> s.source() + ":" + s.name() + "=" + s.value())
                .containsExactly(
                        "DYNAMIC_TOPIC_CONFIG:segment.bytes=1048576", "DEFAULT_CONFIG:log.segment.bytes=1073741824");

        ConfigEntry fromBroker = config.get("retention.ms");
        assertThat(fromBroker.value()).isEqualTo("3600000");
        assertThat(fromBroker.source()).isEqualTo(ConfigSource.STATIC_BROKER_CONFIG);
        assertThat(fromBroker.isDefault()).isFalse();
        assertThat(fromBroker.synonyms())
                .extracting(s -> s.source() + ":" + s.name() + "=" + s.value())
                .containsExactly(
                        "STATIC_BROKER_CONFIG:log.retention.ms=3600000", "DEFAULT_CONFIG:log.retention.ms=604800000");

        ConfigEntry builtIn = config.get("cleanup.policy");
        assertThat(builtIn.value()).isEqualTo("delete");
        assertThat(builtIn.source()).isEqualTo(ConfigSource.DEFAULT_CONFIG);
        assertThat(builtIn.isDefault()).isTrue();
        assertThat(builtIn.isSensitive()).isFalse();
        assertThat(builtIn.type()).isEqualTo(ConfigEntry.ConfigType.LIST);
        assertThat(builtIn.documentation()).contains("compact");
        assertThat(config.get("flush.messages").value()).isEqualTo("1");
    }

    @Test
    void leavesOutSynonymsAndDocumentationUnlessAsked() throws Exception {
        broker.createTopic("orders", 1, Map.of());

        Config config = describe(new ConfigResource(ConfigResource.Type.TOPIC, "orders"), new DescribeConfigsOptions());

        ConfigEntry entry = config.get("retention.ms");
        assertThat(entry.source()).isEqualTo(ConfigSource.STATIC_BROKER_CONFIG);
        assertThat(entry.synonyms()).isEmpty();
        assertThat(entry.documentation()).isNull();
    }

    @Test
    void describesTheBrokersTopicDefaultsAsReadOnly() throws Exception {
        Config config = describe(new ConfigResource(ConfigResource.Type.BROKER, "1"), EVERYTHING);

        ConfigEntry retention = config.get("log.retention.ms");
        assertThat(retention.value()).isEqualTo("3600000");
        assertThat(retention.source()).isEqualTo(ConfigSource.STATIC_BROKER_CONFIG);
        assertThat(retention.isReadOnly()).isTrue();
        ConfigEntry segment = config.get("log.segment.bytes");
        assertThat(segment.value()).isEqualTo("1073741824");
        assertThat(segment.source()).isEqualTo(ConfigSource.DEFAULT_CONFIG);
        assertThat(config.entries()).hasSize(LogConfig.KEYS.size()).allMatch(ConfigEntry::isReadOnly);
    }

    @Test
    void hasNoDynamicClusterWideBrokerDefaults() throws Exception {
        assertThat(describe(new ConfigResource(ConfigResource.Type.BROKER, ""), EVERYTHING)
                        .entries())
                .isEmpty();
    }

    @Test
    void refusesUnknownTopicsAndUnsupportedResources() {
        assertThatThrownBy(() -> describe(new ConfigResource(ConfigResource.Type.TOPIC, "missing"), EVERYTHING))
                .isInstanceOf(ExecutionException.class)
                .hasCauseInstanceOf(UnknownTopicOrPartitionException.class);
        assertThatThrownBy(() -> describe(new ConfigResource(ConfigResource.Type.BROKER_LOGGER, "1"), EVERYTHING))
                .isInstanceOf(ExecutionException.class)
                .hasCauseInstanceOf(InvalidRequestException.class)
                .hasMessageContaining("BROKER_LOGGER");
    }

    @Test
    void listsOnlyTheRequestedKeysInOurOrder() throws Exception {
        broker.createTopic("orders", 1, Map.of());
        DescribeConfigsRequestData data = new DescribeConfigsRequestData()
                .setResources(List.of(new DescribeConfigsRequestData.DescribeConfigsResource()
                        .setResourceType(ConfigResource.Type.TOPIC.id())
                        .setResourceName("orders")
                        .setConfigurationKeys(List.of("segment.bytes", "no.such.key", "cleanup.policy"))));
        DescribeConfigsHandler handler = new DescribeConfigsHandler(
                broker.broker().node(), broker.broker().logs());

        DescribeConfigsResponse response = (DescribeConfigsResponse) handler.handle(
                new ClientInfo("test", "test", "127.0.0.1"), new DescribeConfigsRequest.Builder(data).build((short) 4));

        assertThat(response.data().results().getFirst().configs())
                .extracting(DescribeConfigsResponseData.DescribeConfigsResourceResult::name)
                .containsExactly("cleanup.policy", "segment.bytes");
    }

    private Config describe(ConfigResource resource, DescribeConfigsOptions options) throws Exception {
        return admin.describeConfigs(List.of(resource), options)
                .all()
                .get(30, TimeUnit.SECONDS)
                .get(resource);
    }
}
