package io.orderflow.broker.server;

import io.orderflow.broker.log.LogDirectory;
import io.orderflow.broker.log.PartitionLog;
import io.prometheus.metrics.model.registry.MultiCollector;
import io.prometheus.metrics.model.snapshots.CounterSnapshot;
import io.prometheus.metrics.model.snapshots.CounterSnapshot.CounterDataPointSnapshot;
import io.prometheus.metrics.model.snapshots.GaugeSnapshot;
import io.prometheus.metrics.model.snapshots.GaugeSnapshot.GaugeDataPointSnapshot;
import io.prometheus.metrics.model.snapshots.Labels;
import io.prometheus.metrics.model.snapshots.MetricSnapshots;

/**
 * Per partition ({@code topic}, {@code partition}): the log end and start offsets, the bytes on disk and the fsyncs
 * of the active segment, read from each {@link PartitionLog} at scrape time in one pass.
 */
final class PartitionMetrics implements MultiCollector {
    static final String END_OFFSET = "orderflow_broker_log_end_offset";
    static final String START_OFFSET = "orderflow_broker_log_start_offset";
    static final String SIZE_BYTES = "orderflow_broker_log_size_bytes";
    static final String FLUSHES = "orderflow_broker_log_flushes_total";

    private final LogDirectory logs;

    PartitionMetrics(LogDirectory logs) {
        this.logs = logs;
    }

    @Override
    public MetricSnapshots collect() {
        var end = GaugeSnapshot.builder().name(END_OFFSET).help("Next offset to be written, per partition.");
        var start = GaugeSnapshot.builder().name(START_OFFSET).help("First offset still stored, per partition.");
        var size = GaugeSnapshot.builder().name(SIZE_BYTES).help("Bytes on disk, per partition.");
        var flushes = CounterSnapshot.builder().name(FLUSHES).help("fsyncs of each partition's active segment.");
        for (PartitionLog p : logs.partitions()) {
            Labels labels = labels(p);
            end.dataPoint(gauge(labels, p.logEndOffset()));
            start.dataPoint(gauge(labels, p.logStartOffset()));
            size.dataPoint(gauge(labels, p.sizeInBytes()));
            flushes.dataPoint(CounterDataPointSnapshot.builder()
                    .labels(labels)
                    .value(p.flushCount())
                    .build());
        }
        return MetricSnapshots.of(end.build(), start.build(), size.build(), flushes.build());
    }

    /** {@code orders-3}: topic {@code orders}, partition {@code 3} (a topic name may itself hold dashes). */
    private static Labels labels(PartitionLog p) {
        String name = p.name();
        int dash = name.lastIndexOf('-');
        return Labels.of("topic", name.substring(0, dash), "partition", name.substring(dash + 1));
    }

    private static GaugeDataPointSnapshot gauge(Labels labels, long value) {
        return GaugeDataPointSnapshot.builder().labels(labels).value(value).build();
    }
}
