package io.orderflow.ops.bench.platform;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.ConsumerGroupDescription;
import org.apache.kafka.clients.admin.ListOffsetsResult;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.GroupState;
import org.apache.kafka.common.TopicPartition;

/**
 * Consumer groups' lag on one topic, read once a second over the Kafka protocol as an operator's tool reads it: the
 * topic's end offsets (ListOffsets, latest) and each group's committed offsets (OffsetFetch); a group's lag is the sum
 * over partitions of end minus committed (minus zero where nothing is committed yet). Committed offsets trail what a
 * group has processed by up to its commit interval, so the readings are an upper bound of the backlog.
 *
 * <p>Runs on its own thread with its own Admin client; {@link #samples} and {@link #close} from any thread.
 */
final class GroupLagSampler implements AutoCloseable {
    private static final long TIMEOUT_SECONDS = 10;

    /** One reading: wall-clock millis and each group's lag in records. */
    record Sample(long atMillis, Map<String, Long> lag) {}

    private final Admin admin;
    private final String topic;
    private final List<String> groups;
    private final List<Sample> samples = new ArrayList<>(); // guarded by this
    private final Thread thread;
    private volatile boolean stopped;
    private volatile String lastFailure;

    private GroupLagSampler(String bootstrapServers, String topic, List<String> groups) {
        this.admin = Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers));
        this.topic = topic;
        this.groups = List.copyOf(groups);
        this.thread = Thread.ofPlatform().name("group-lag-sampler").daemon().unstarted(this::loop);
    }

    static GroupLagSampler start(String bootstrapServers, String topic, List<String> groups) {
        GroupLagSampler sampler = new GroupLagSampler(bootstrapServers, topic, groups);
        sampler.thread.start();
        return sampler;
    }

    /** Waits until every group is stable with at least one member, so that the load meets consumers at work. */
    void awaitStable(long timeoutMillis) throws Exception {
        long deadline = System.currentTimeMillis() + timeoutMillis;
        while (true) {
            Map<String, ConsumerGroupDescription> described =
                    admin.describeConsumerGroups(groups).all().get(TIMEOUT_SECONDS, TimeUnit.SECONDS);
            List<String> unstable = described.values().stream()
                    .filter(g ->
                            g.groupState() != GroupState.STABLE || g.members().isEmpty())
                    .map(g -> g.groupId() + " " + g.groupState())
                    .toList();
            if (unstable.isEmpty()) {
                return;
            }
            if (System.currentTimeMillis() > deadline) {
                throw new IllegalStateException("consumer groups not stable: " + unstable);
            }
            Thread.sleep(200); // polling the group coordinator for the groups' state
        }
    }

    /** The lag of every group now. */
    Map<String, Long> read() throws Exception {
        List<TopicPartition> partitions = admin
                .describeTopics(List.of(topic))
                .allTopicNames()
                .get(TIMEOUT_SECONDS, TimeUnit.SECONDS)
                .get(topic)
                .partitions()
                .stream()
                .map(p -> new TopicPartition(topic, p.partition()))
                .toList();
        Map<TopicPartition, ListOffsetsResult.ListOffsetsResultInfo> ends = admin.listOffsets(
                        partitions.stream().collect(Collectors.toMap(p -> p, p -> OffsetSpec.latest())))
                .all()
                .get(TIMEOUT_SECONDS, TimeUnit.SECONDS);
        Map<String, Long> lag = new LinkedHashMap<>();
        for (String group : groups) {
            Map<TopicPartition, OffsetAndMetadata> committed = admin.listConsumerGroupOffsets(group)
                    .partitionsToOffsetAndMetadata()
                    .get(TIMEOUT_SECONDS, TimeUnit.SECONDS);
            long total = 0;
            for (TopicPartition partition : partitions) {
                OffsetAndMetadata offset = committed.get(partition);
                total += Math.max(0, ends.get(partition).offset() - (offset == null ? 0 : offset.offset()));
            }
            lag.put(group, total);
        }
        return lag;
    }

    private void loop() {
        while (!stopped) {
            long at = System.currentTimeMillis();
            try {
                Map<String, Long> lag = read();
                synchronized (this) {
                    samples.add(new Sample(at, lag));
                }
            } catch (InterruptedException e) {
                return;
            } catch (Exception e) {
                lastFailure = e.toString();
            }
            try {
                Thread.sleep(Math.max(0, at + 1000 - System.currentTimeMillis())); // one reading a second
            } catch (InterruptedException e) {
                return;
            }
        }
    }

    /** The readings taken from {@code fromMillis} to {@code toMillis} (wall clock). */
    synchronized List<Sample> samples(long fromMillis, long toMillis) {
        return samples.stream()
                .filter(s -> s.atMillis() >= fromMillis && s.atMillis() <= toMillis)
                .toList();
    }

    String lastFailure() {
        return lastFailure;
    }

    @Override
    public void close() throws InterruptedException {
        stopped = true;
        thread.interrupt();
        thread.join(TimeUnit.SECONDS.toMillis(TIMEOUT_SECONDS));
        admin.close();
    }
}
