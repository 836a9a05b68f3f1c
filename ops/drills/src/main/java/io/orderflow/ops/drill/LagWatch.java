package io.orderflow.ops.drill;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.orderflow.ops.load.OpenLoopLoad;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.function.BooleanSupplier;
import java.util.stream.Stream;

/**
 * Each consumer group's lag on the topic it reads over a drill, read from the lag monitor's {@code GET /lag} once per
 * {@link #sample} call, and drawn as one line of block characters per group: the trace of a drill's effect that the
 * report shows. Also answers "has every group caught up". The groups may read different topics (the three consumers
 * read {@code orders}, order-service's saga group {@code inventory}: {@link #of}); each is read on its own topic only.
 * Not thread-safe (the drill's thread).
 */
public final class LagWatch {

    /**
     * One reading of one group: when (seconds since the watch began), lag in records, status, on how many of the
     * topic's partitions the group has a committed offset, and the lag per partition (a partition a member holds
     * without a commit counts from the log start, as the monitor shows it; one nobody holds or committed has none).
     */
    public record Reading(
            double atSeconds, long lag, String status, int committedPartitions, Map<Integer, Long> partitionLag) {
        public Reading {
            partitionLag = Map.copyOf(partitionLag);
        }

        public Reading(double atSeconds, long lag, String status) {
            this(atSeconds, lag, status, 0, Map.of());
        }
    }

    /** The lag monitor's produce rate of each of a topic's partitions at one reading (records a second). */
    public record Rates(double atSeconds, Map<Integer, Double> producedPerSecond) {
        public Rates {
            producedPerSecond = Map.copyOf(producedPerSecond);
        }
    }

    private static final String BARS = " ▁▂▃▄▅▆▇█";

    private final URI lag;
    /** The topic each watched group is read on, in the order the chart draws them. */
    private final Map<String, String> topics;

    private final List<String> groups;
    private final HttpClient http =
            HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
    private final ObjectMapper json = new ObjectMapper();
    private final Map<String, List<Reading>> readings = new LinkedHashMap<>();
    private final Map<String, List<Rates>> rates = new HashMap<>();
    private final Map<String, Integer> topicPartitions = new HashMap<>();
    private final long startedNanos = System.nanoTime();

    /** Watches {@code groups}, each on {@code topic}. */
    public LagWatch(URI lagMonitor, String topic, List<String> groups) {
        this(lagMonitor, onOneTopic(topic, groups));
    }

    /** Watches each group of {@code topicByGroup} on its topic, in the map's order. */
    public LagWatch(URI lagMonitor, Map<String, String> topicByGroup) {
        this.lag = lagMonitor.resolve("/lag");
        this.topics = Collections.unmodifiableMap(new LinkedHashMap<>(topicByGroup));
        this.groups = List.copyOf(topicByGroup.keySet());
        groups.forEach(group -> readings.put(group, new ArrayList<>()));
    }

    /** Watches {@code groups} of the platform, each on the topic it reads ({@link DrillTarget#topicOf}). */
    public static LagWatch of(URI lagMonitor, List<String> groups) {
        Map<String, String> topics = new LinkedHashMap<>();
        groups.forEach(group -> topics.put(group, DrillTarget.topicOf(group)));
        return new LagWatch(lagMonitor, topics);
    }

    private static Map<String, String> onOneTopic(String topic, List<String> groups) {
        Map<String, String> topics = new LinkedHashMap<>();
        groups.forEach(group -> topics.put(group, topic));
        return topics;
    }

    /** Reads the lag monitor once and records every watched group's lag on the topic; false if it did not answer. */
    public boolean sample() throws InterruptedException {
        JsonNode snapshot;
        try {
            HttpResponse<String> response = http.send(
                    HttpRequest.newBuilder(lag).timeout(Duration.ofSeconds(5)).build(),
                    HttpResponse.BodyHandlers.ofString());
            if (response.statusCode() != 200) {
                return false;
            }
            snapshot = json.readTree(response.body());
        } catch (IOException e) {
            return false;
        }
        double at = (System.nanoTime() - startedNanos) / 1e9;
        for (JsonNode topicLag : snapshot.path("topics")) {
            String topic = topicLag.path("topic").asText();
            if (topics.containsValue(topic)) {
                topicPartitions.put(topic, topicLag.path("partitions").size());
                Map<Integer, Double> produced = new TreeMap<>();
                for (JsonNode partition : topicLag.path("partitions")) {
                    produced.put(
                            partition.path("partition").asInt(),
                            partition.path("producedPerSecond").asDouble());
                }
                rates.computeIfAbsent(topic, t -> new ArrayList<>()).add(new Rates(at, produced));
            }
        }
        for (JsonNode group : snapshot.path("groups")) {
            String name = group.path("group").asText();
            if (!readings.containsKey(name)) {
                continue;
            }
            String topic = topics.get(name);
            long total = 0;
            int committed = 0;
            Map<Integer, Long> partitionLag = new TreeMap<>();
            String status = group.path("status").asText();
            for (JsonNode partition : group.path("partitions")) {
                if (partition.path("topic").asText().equals(topic)) {
                    total += partition.path("lag").asLong();
                    partitionLag.put(
                            partition.path("partition").asInt(),
                            partition.path("lag").asLong());
                    if (partition.path("committed").asLong() >= 0) {
                        committed++;
                    }
                }
            }
            readings.get(name).add(new Reading(at, total, status, committed, partitionLag));
        }
        return true;
    }

    /** Reads the lag once a second until {@code until} (a {@link System#nanoTime()}). */
    public void watchUntil(long until) throws InterruptedException {
        while (System.nanoTime() < until) {
            sample();
            OpenLoopLoad.sleepUntil(Math.min(until, System.nanoTime() + 1_000_000_000L));
        }
    }

    /** Reads the lag once a second while {@code running} is true, and once more. */
    public void watchWhile(BooleanSupplier running) throws InterruptedException {
        while (running.getAsBoolean()) {
            sample();
            OpenLoopLoad.sleepUntil(System.nanoTime() + 1_000_000_000L);
        }
        sample();
    }

    /** The largest lag of {@code group} read between {@code fromSeconds} and {@code toSeconds} of the watch, or 0. */
    public long maxLag(String group, double fromSeconds, double toSeconds) {
        return between(group, fromSeconds, toSeconds)
                .mapToLong(Reading::lag)
                .max()
                .orElse(0);
    }

    /** The statuses of {@code group} read between {@code fromSeconds} and {@code toSeconds}, in order of appearance. */
    public Set<String> statuses(String group, double fromSeconds, double toSeconds) {
        Set<String> seen = new LinkedHashSet<>();
        between(group, fromSeconds, toSeconds).forEach(r -> seen.add(r.status()));
        return seen;
    }

    private Stream<Reading> between(String group, double fromSeconds, double toSeconds) {
        return readings.getOrDefault(group, List.of()).stream()
                .filter(r -> r.atSeconds() >= fromSeconds && r.atSeconds() <= toSeconds);
    }

    /**
     * The produce rate of each partition of {@code topic} (one a watched group reads) at the last reading at or before
     * {@code atSeconds} of the watch: the lag monitor's rate over its window (60 s by default) up to then.
     */
    public Map<Integer, Double> ratesAt(String topic, double atSeconds) {
        return rates.getOrDefault(topic, List.of()).stream()
                .filter(r -> r.atSeconds() <= atSeconds)
                .reduce((first, second) -> second)
                .map(Rates::producedPerSecond)
                .orElse(Map.of());
    }

    /** The largest lag of {@code group} on each partition between the two times of the watch. */
    public Map<Integer, Long> peakPartitionLag(String group, double fromSeconds, double toSeconds) {
        Map<Integer, Long> peaks = new TreeMap<>();
        between(group, fromSeconds, toSeconds)
                .forEach(r -> r.partitionLag().forEach((partition, lag) -> peaks.merge(partition, lag, Math::max)));
        return peaks;
    }

    /** Seconds since the watch began: the time axis of its readings. */
    public double seconds() {
        return (System.nanoTime() - startedNanos) / 1e9;
    }

    /** The latest reading of {@code group}, if any. */
    public Optional<Reading> latest(String group) {
        List<Reading> list = readings.get(group);
        return list == null || list.isEmpty() ? Optional.empty() : Optional.of(list.getLast());
    }

    /** True when {@code group} has committed an offset on every partition of its topic, as of the latest reading. */
    public boolean committedEverywhere(String group) {
        int partitions = topicPartitions.getOrDefault(topics.get(group), 0);
        return partitions > 0
                && latest(group).map(r -> r.committedPartitions() == partitions).orElse(false);
    }

    /** Each watched group's latest lag on its topic, as a report shows it: {@code [group lag N, ...]} (-1: no reading). */
    public String latestLags() {
        return groups.stream()
                .map(group -> group + " lag " + latest(group).map(Reading::lag).orElse(-1L))
                .toList()
                .toString();
    }

    /** True when the latest reading of every watched group shows no lag on its topic. */
    public boolean allCaughtUp() {
        return groups.stream()
                .allMatch(group -> latest(group).map(r -> r.lag() == 0).orElse(false));
    }

    public Map<String, List<Reading>> readings() {
        Map<String, List<Reading>> copy = new LinkedHashMap<>();
        readings.forEach((group, list) -> copy.put(group, List.copyOf(list)));
        return copy;
    }

    /**
     * One line per group: its lag over the drill in at most {@code width} columns, each the largest lag it covers.
     * Where the groups read more than one topic, each line names its group's topic too.
     */
    public String chart(int width) {
        if (Set.copyOf(topics.values()).size() == 1) {
            return chart(readings(), width);
        }
        Map<String, List<Reading>> labelled = new LinkedHashMap<>();
        readings().forEach((group, list) -> labelled.put(group + " (" + topics.get(group) + ")", list));
        return chart(labelled, width);
    }

    static String chart(Map<String, List<Reading>> readings, int width) {
        long max = readings.values().stream()
                .flatMap(List::stream)
                .mapToLong(Reading::lag)
                .max()
                .orElse(0);
        int labelWidth = Math.max(
                22, readings.keySet().stream().mapToInt(String::length).max().orElse(0));
        StringBuilder chart = new StringBuilder();
        for (Map.Entry<String, List<Reading>> group : readings.entrySet()) {
            List<Reading> list = group.getValue();
            StringBuilder line = new StringBuilder();
            int columns = Math.min(width, list.size());
            for (int column = 0; column < columns; column++) {
                int from = column * list.size() / columns;
                int to = (column + 1) * list.size() / columns;
                long peak = 0;
                for (int i = from; i < to; i++) {
                    peak = Math.max(peak, list.get(i).lag());
                }
                int level = max == 0 ? 0 : (int) Math.ceil(peak * (BARS.length() - 1) / (double) max);
                line.append(peak > 0 && level == 0 ? BARS.charAt(1) : BARS.charAt(level));
            }
            long groupMax = list.stream().mapToLong(Reading::lag).max().orElse(0);
            String last = list.isEmpty() ? "-" : list.getLast().status();
            chart.append(String.format(
                    "  %-" + labelWidth + "s |%s| max %,d records, last status %s%n",
                    group.getKey(),
                    line,
                    groupMax,
                    last));
        }
        double span = readings.values().stream()
                .flatMap(List::stream)
                .mapToDouble(Reading::atSeconds)
                .max()
                .orElse(0);
        chart.append(String.format(
                "  %-" + labelWidth + "s  0 s .. %.0f s, one reading a second; full height = %,d records%n",
                "",
                span,
                max));
        return chart.toString();
    }
}
