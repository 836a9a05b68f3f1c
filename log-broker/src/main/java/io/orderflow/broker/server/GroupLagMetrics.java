package io.orderflow.broker.server;

import io.orderflow.broker.group.GroupCoordinator;
import io.orderflow.broker.log.LogDirectory;
import io.orderflow.broker.log.PartitionLog;
import java.util.Map;
import java.util.Optional;
import org.apache.kafka.common.TopicPartition;

/**
 * Per group and partition: the committed offset and the lag (log end minus committed), the two numbers an
 * operator watches for a slow or stuck consumer.
 */
final class GroupLagMetrics implements MetricsServer.Section {
    private final GroupCoordinator groups;
    private final LogDirectory logs;

    GroupLagMetrics(GroupCoordinator groups, LogDirectory logs) {
        this.groups = groups;
        this.logs = logs;
    }

    @Override
    public void accept(StringBuilder out) {
        Map<String, Map<TopicPartition, Long>> committed = groups.committedOffsets();
        out.append("# HELP orderflow_broker_group_committed_offset Committed offset per group and partition.\n");
        out.append("# TYPE orderflow_broker_group_committed_offset gauge\n");
        committed.forEach((group, offsets) ->
                offsets.forEach((tp, offset) -> out.append("orderflow_broker_group_committed_offset")
                        .append(labels(group, tp))
                        .append(offset)
                        .append('\n')));
        out.append(
                "# HELP orderflow_broker_group_lag Log end offset minus committed offset per group and partition.\n");
        out.append("# TYPE orderflow_broker_group_lag gauge\n");
        committed.forEach((group, offsets) -> offsets.forEach((tp, offset) -> {
            Optional<PartitionLog> log = logs.partition(tp.topic(), tp.partition());
            log.ifPresent(l -> out.append("orderflow_broker_group_lag")
                    .append(labels(group, tp))
                    .append(Math.max(0, l.logEndOffset() - offset))
                    .append('\n'));
        }));
    }

    private static String labels(String group, TopicPartition tp) {
        return "{group=\"" + group.replace("\\", "\\\\").replace("\"", "\\\"") + "\",topic=\"" + tp.topic()
                + "\",partition=\"" + tp.partition() + "\"} ";
    }
}
