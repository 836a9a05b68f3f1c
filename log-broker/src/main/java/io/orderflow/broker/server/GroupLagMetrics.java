package io.orderflow.broker.server;

import io.orderflow.broker.group.GroupCoordinator;
import io.orderflow.broker.log.LogDirectory;
import io.orderflow.broker.log.PartitionLog;
import io.prometheus.metrics.model.registry.MultiCollector;
import io.prometheus.metrics.model.snapshots.GaugeSnapshot;
import io.prometheus.metrics.model.snapshots.GaugeSnapshot.GaugeDataPointSnapshot;
import io.prometheus.metrics.model.snapshots.Labels;
import io.prometheus.metrics.model.snapshots.MetricSnapshots;
import java.util.Map;
import java.util.Optional;
import org.apache.kafka.common.TopicPartition;

/**
 * Per group and partition: the committed offset and the lag (log end minus committed), the two numbers an
 * operator watches for a slow or stuck consumer. Both come from one read of the coordinator's offsets per scrape.
 * A group id is whatever a client chose (quotes, backslashes, newlines): the text writer escapes it.
 */
final class GroupLagMetrics implements MultiCollector {
    static final String COMMITTED_OFFSET = "orderflow_broker_group_committed_offset";
    static final String LAG = "orderflow_broker_group_lag";

    private final GroupCoordinator groups;
    private final LogDirectory logs;

    GroupLagMetrics(GroupCoordinator groups, LogDirectory logs) {
        this.groups = groups;
        this.logs = logs;
    }

    @Override
    public MetricSnapshots collect() {
        var committedOffset =
                GaugeSnapshot.builder().name(COMMITTED_OFFSET).help("Committed offset per group and partition.");
        var lag = GaugeSnapshot.builder()
                .name(LAG)
                .help("Log end offset minus committed offset per group and partition.");
        Map<String, Map<TopicPartition, Long>> committed = groups.committedOffsets();
        committed.forEach((group, offsets) -> offsets.forEach((tp, offset) -> {
            Labels labels =
                    Labels.of("group", group, "topic", tp.topic(), "partition", Integer.toString(tp.partition()));
            committedOffset.dataPoint(gauge(labels, offset));
            Optional<PartitionLog> log = logs.partition(tp.topic(), tp.partition());
            log.ifPresent(l -> lag.dataPoint(gauge(labels, Math.max(0, l.logEndOffset() - offset))));
        }));
        return MetricSnapshots.of(committedOffset.build(), lag.build());
    }

    private static GaugeDataPointSnapshot gauge(Labels labels, long value) {
        return GaugeDataPointSnapshot.builder().labels(labels).value(value).build();
    }
}
