package io.orderflow.lag;

import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.MultiGauge;
import io.micrometer.core.instrument.Tags;
import jakarta.inject.Singleton;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * The snapshot as Prometheus gauges on {@code /q/metrics}. kafka_exporter's names and labels, so that its dashboards
 * and alerts work unchanged: {@code kafka_brokers}, {@code kafka_topic_partitions{topic}},
 * {@code kafka_topic_partition_current_offset{topic,partition}}, {@code kafka_topic_partition_oldest_offset},
 * {@code kafka_consumergroup_current_offset{consumergroup,topic,partition}}, {@code kafka_consumergroup_current_offset_sum
 * {consumergroup,topic}}, {@code kafka_consumergroup_lag}, {@code kafka_consumergroup_lag_sum},
 * {@code kafka_consumergroup_members{consumergroup}}. And this monitor's own: {@code orderflow_consumergroup_lag_seconds}
 * and {@code orderflow_consumergroup_lag_growth_rate} (records/s) per partition,
 * {@code orderflow_consumergroup_status{consumergroup,status}} (1 for the group's status, 0 for the others), and
 * {@code orderflow_topic_partition_produce_rate{topic,partition}} (records/s). On a partition a member holds where the
 * group has committed nothing, kafka_exporter's figures are its own: current offset -1 (added into the sum as is), lag
 * -1 (left out of the sum); this monitor's lag in seconds is the real age. Rows of groups and partitions that are gone
 * are removed. Thread-safe.
 */
@Singleton
public class LagMetrics {

    private final MeterRegistry registry;
    private final Map<String, MultiGauge> gauges = new HashMap<>();

    LagMetrics(MeterRegistry registry) {
        this.registry = registry;
        // Meters of an earlier application in the same JVM (Quarkus's tests restart it) would be found by their ids
        // and kept, holding that application's values: start from none of them.
        for (Meter meter : List.copyOf(registry.getMeters())) {
            String name = meter.getId().getName();
            if (name.startsWith("kafka.")
                    || name.startsWith("orderflow.consumergroup.")
                    || name.startsWith("orderflow.topic.")) {
                registry.remove(meter);
            }
        }
    }

    synchronized void publish(LagSnapshot snapshot) {
        Map<String, List<MultiGauge.Row<?>>> rows = new HashMap<>();
        add(rows, "kafka.brokers", Tags.empty(), snapshot.brokers());
        for (LagSnapshot.TopicLag topic : snapshot.topics()) {
            add(
                    rows,
                    "kafka.topic.partitions",
                    Tags.of("topic", topic.topic()),
                    topic.partitions().size());
            for (LagSnapshot.PartitionRate p : topic.partitions()) {
                Tags tags = Tags.of("topic", topic.topic(), "partition", Integer.toString(p.partition()));
                add(rows, "kafka.topic.partition.current.offset", tags, p.endOffset());
                add(rows, "kafka.topic.partition.oldest.offset", tags, p.startOffset());
                add(rows, "orderflow.topic.partition.produce.rate", tags, p.producedPerSecond());
            }
        }
        for (LagSnapshot.GroupLag group : snapshot.groups()) {
            Tags groupTag = Tags.of("consumergroup", group.group());
            add(rows, "kafka.consumergroup.members", groupTag, group.members().size());
            for (LagStatus status : LagStatus.values()) {
                add(
                        rows,
                        "orderflow.consumergroup.status",
                        groupTag.and("status", status.name()),
                        status == group.status() ? 1 : 0);
            }
            Map<String, long[]> sums = new HashMap<>();
            for (LagSnapshot.PartitionLag p : group.partitions()) {
                Tags tags = groupTag.and("topic", p.topic(), "partition", Integer.toString(p.partition()));
                boolean committed = p.committed() != LagMonitor.NOT_COMMITTED;
                add(rows, "kafka.consumergroup.current.offset", tags, p.committed());
                // As kafka_exporter: -1 where nothing is committed, left out of the sum, "to be able to alert on that".
                add(rows, "kafka.consumergroup.lag", tags, committed ? p.lag() : -1);
                add(rows, "orderflow.consumergroup.lag.seconds", tags, p.lagSeconds());
                add(rows, "orderflow.consumergroup.lag.growth.rate", tags, p.growthPerSecond());
                long[] sum = sums.computeIfAbsent(p.topic(), t -> new long[2]);
                sum[0] += p.committed();
                sum[1] += committed ? p.lag() : 0;
            }
            sums.forEach((topic, sum) -> {
                Tags tags = groupTag.and("topic", topic);
                add(rows, "kafka.consumergroup.current.offset.sum", tags, sum[0]);
                add(rows, "kafka.consumergroup.lag.sum", tags, sum[1]);
            });
        }
        for (String name : List.copyOf(gauges.keySet())) {
            rows.putIfAbsent(name, List.of());
        }
        rows.forEach((name, list) -> gauges.computeIfAbsent(
                        name, n -> MultiGauge.builder(n).register(registry))
                .register(list, true));
    }

    private static void add(Map<String, List<MultiGauge.Row<?>>> rows, String name, Tags tags, Number value) {
        rows.computeIfAbsent(name, n -> new ArrayList<>()).add(MultiGauge.Row.of(tags, value));
    }
}
