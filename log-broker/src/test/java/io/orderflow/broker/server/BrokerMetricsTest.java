package io.orderflow.broker.server;

import static org.assertj.core.api.Assertions.assertThat;

import io.orderflow.broker.group.GroupCoordinator;
import io.orderflow.broker.group.GroupCoordinatorConfig;
import io.orderflow.broker.group.GroupStore;
import io.orderflow.broker.handler.ClientInfo;
import io.orderflow.broker.handler.RequestFaults;
import io.orderflow.broker.log.LogConfig;
import io.orderflow.broker.log.LogDirectory;
import io.orderflow.broker.log.LogFiles;
import io.orderflow.broker.log.PartitionLog;
import io.orderflow.broker.network.ConnectionQuotas;
import io.orderflow.broker.network.NetworkLimits;
import io.orderflow.broker.network.NetworkStats;
import io.orderflow.broker.network.RequestMemory;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Clock;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.Executor;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.apache.kafka.common.message.OffsetCommitRequestData;
import org.apache.kafka.common.message.OffsetCommitRequestData.OffsetCommitRequestPartition;
import org.apache.kafka.common.message.OffsetCommitRequestData.OffsetCommitRequestTopic;
import org.apache.kafka.common.protocol.ApiKeys;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The names, types, HELP texts and label names of {@code /metrics} are a contract with the dashboards, the alert
 * rules and the docs: this test writes each one out, as the broker has always exposed it, and compares the whole
 * exposition of a broker with a partition, a group's offset and a recorded fault against them.
 */
class BrokerMetricsTest {
    private static final Executor INLINE = Runnable::run;

    /** name -> "type|HELP text|label names", exactly as before the exposition was written by Prometheus' library. */
    private static final Map<String, String> CONTRACT = Map.ofEntries(
            Map.entry("orderflow_broker_request_seconds", "histogram|Time to handle a request, by API.|[api, le]"),
            Map.entry("orderflow_broker_bytes_in_total", "counter|Request bytes received.|[]"),
            Map.entry("orderflow_broker_bytes_out_total", "counter|Response bytes sent.|[]"),
            Map.entry("orderflow_broker_rejected_frames_total", "counter|Frames that closed their connection.|[]"),
            Map.entry("orderflow_broker_connections_accepted_total", "counter|Connections accepted.|[]"),
            Map.entry(
                    "orderflow_broker_connections_refused_total",
                    "counter|Connections closed as soon as they were accepted: over max.connections or"
                            + " max.connections.per.ip.|[]"),
            Map.entry(
                    "orderflow_broker_idle_connections_closed_total",
                    "counter|Connections closed after connections.max.idle.ms without a request.|[]"),
            Map.entry("orderflow_broker_connections_open", "gauge|Connections open now.|[]"),
            Map.entry(
                    "orderflow_broker_request_memory_budget_bytes",
                    "gauge|queued.max.request.bytes: the bytes of request frames being read and decoded at once (-1:"
                            + " unbounded).|[]"),
            Map.entry(
                    "orderflow_broker_request_memory_reserved_bytes",
                    "gauge|Bytes of request frames being read and decoded now.|[]"),
            Map.entry(
                    "orderflow_broker_request_memory_waiting_frames",
                    "gauge|Frames waiting for room in queued.max.request.bytes; their connections are not read"
                            + " meanwhile.|[]"),
            Map.entry(
                    "orderflow_broker_log_end_offset",
                    "gauge|Next offset to be written, per partition.|[partition, topic]"),
            Map.entry(
                    "orderflow_broker_log_start_offset",
                    "gauge|First offset still stored, per partition.|[partition, topic]"),
            Map.entry("orderflow_broker_log_size_bytes", "gauge|Bytes on disk, per partition.|[partition, topic]"),
            Map.entry(
                    "orderflow_broker_log_flushes_total",
                    "counter|fsyncs of each partition's active segment.|[partition, topic]"),
            Map.entry(
                    "orderflow_broker_group_committed_offset",
                    "gauge|Committed offset per group and partition.|[group, partition, topic]"),
            Map.entry(
                    "orderflow_broker_group_lag",
                    "gauge|Log end offset minus committed offset per group and partition.|[group, partition, topic]"),
            Map.entry(
                    "orderflow_broker_request_failures_total",
                    "counter|Requests answered with an error because the broker failed inside, by API, version and"
                            + " stage.|[api, stage, version]"),
            Map.entry(
                    "orderflow_broker_throttled_responses_total",
                    "counter|Answers that put their client over a client quota and muted its connection"
                            + " (throttle_time_ms > 0).|[quota]"),
            Map.entry(
                    "orderflow_broker_throttle_seconds_total",
                    "counter|The throttle times given for client quotas, summed.|[quota]"));

    private static final Pattern SAMPLE = Pattern.compile("^([a-z_]+?)(_bucket|_sum|_count)?(\\{.*})? \\S+$");
    private static final Pattern LABEL = Pattern.compile("([a-z_]+)=\"");

    @TempDir
    Path dir;

    @Test
    void everyMetricKeepsItsNameTypeHelpAndLabels() throws Exception {
        Clock clock = Clock.systemUTC();
        LogDirectory logs =
                LogDirectory.open(dir.resolve("data"), LogConfig.defaults(), clock, LogFiles.real(), INLINE);
        PartitionLog offsetsLog = GroupStore.openLog(dir.resolve("offsets"), clock, LogFiles.real(), INLINE);
        try (logs;
                offsetsLog) {
            logs.createTopic("orders", 1, Map.of());
            GroupCoordinator groups = new GroupCoordinator(offsetsLog, GroupCoordinatorConfig.defaults(), clock);
            groups.commitOffsets(
                            new OffsetCommitRequestData()
                                    .setGroupId("billing")
                                    .setGenerationIdOrMemberEpoch(-1)
                                    .setMemberId("")
                                    .setTopics(List.of(new OffsetCommitRequestTopic()
                                            .setName("orders")
                                            .setPartitions(List.of(new OffsetCommitRequestPartition()
                                                    .setPartitionIndex(0)
                                                    .setCommittedOffset(0))))),
                            (short) 9)
                    .get(10, TimeUnit.SECONDS);
            RequestMetrics requests = new RequestMetrics();
            requests.record(ApiKeys.PRODUCE, 1_500_000);
            RequestFaults faults = new RequestFaults(clock);
            faults.record(
                    RequestFaults.Stage.HANDLE,
                    ApiKeys.FETCH,
                    (short) 11,
                    new ClientInfo("conn-1", "kcat", "/127.0.0.1:5000"),
                    new IllegalStateException("bug"));

            String text = new String(
                    MetricsServer.exposition(BrokerMetrics.registry(
                            requests,
                            new NetworkStats(),
                            new ConnectionQuotas(NetworkLimits.DEFAULTS),
                            new RequestMemory(1 << 20),
                            logs,
                            groups,
                            faults,
                            new io.orderflow.broker.security.Logins(java.time.Clock.systemUTC(), 0),
                            io.orderflow.broker.quota.ClientQuotas.none())),
                    StandardCharsets.UTF_8);

            assertThat(families(text)).isEqualTo(new TreeMap<>(CONTRACT));
        }
    }

    /** Each metric family of {@code text}: "type|HELP|label names of its samples". */
    private static Map<String, String> families(String text) {
        Map<String, String> types = new TreeMap<>();
        Map<String, String> helps = new TreeMap<>();
        Map<String, TreeSet<String>> labels = new TreeMap<>();
        for (String line : text.split("\n")) {
            if (line.startsWith("# TYPE ")) {
                String[] parts = line.split(" ", 4);
                types.put(parts[2], parts[3]);
                labels.put(parts[2], new TreeSet<>());
            } else if (line.startsWith("# HELP ")) {
                String[] parts = line.split(" ", 4);
                helps.put(parts[2], parts[3]);
            } else {
                Matcher sample = SAMPLE.matcher(line);
                assertThat(sample.matches()).as("a sample line: %s", line).isTrue();
                String family = labels.containsKey(sample.group(1) + (sample.group(2) == null ? "" : sample.group(2)))
                        ? sample.group(1) + (sample.group(2) == null ? "" : sample.group(2))
                        : sample.group(1);
                Matcher label = LABEL.matcher(sample.group(3) == null ? "" : sample.group(3));
                while (label.find()) {
                    labels.get(family).add(label.group(1));
                }
            }
        }
        Map<String, String> families = new TreeMap<>();
        types.forEach((name, type) -> families.put(name, type + "|" + helps.get(name) + "|" + labels.get(name)));
        return families;
    }
}
