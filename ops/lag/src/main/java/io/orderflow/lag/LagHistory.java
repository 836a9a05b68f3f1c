package io.orderflow.lag;

import java.util.LinkedHashMap;
import java.util.Map;

/** The lag readings {@code GET /lag/history} serves for the dashboard's charts: small points, oldest first. */
public final class LagHistory {

    private LagHistory() {}

    /** One reading: per group, its lag (records, seconds), status, and lag per partition ("topic-partition"). */
    public record Point(long at, Map<String, GroupPoint> groups) {
        static Point of(LagSnapshot snapshot) {
            Map<String, GroupPoint> groups = new LinkedHashMap<>();
            for (LagSnapshot.GroupLag group : snapshot.groups()) {
                Map<String, Long> partitions = new LinkedHashMap<>();
                group.partitions().forEach(p -> partitions.put(p.topic() + "-" + p.partition(), p.lag()));
                groups.put(group.group(), new GroupPoint(group.lag(), group.lagSeconds(), group.status(), partitions));
            }
            return new Point(snapshot.takenAtMillis(), groups);
        }
    }

    public record GroupPoint(long lag, double lagSeconds, LagStatus status, Map<String, Long> partitions) {}
}
