package io.orderflow.ops.bench.platform;

import io.orderflow.lag.ClusterReader;
import io.orderflow.lag.ClusterView;
import io.orderflow.lag.LagMonitor;
import io.orderflow.lag.LagSnapshot;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;

/**
 * Consumer groups' lag, each on its source topic, read once a second with the lag monitor's own reader ({@link
 * ClusterReader}, {@link LagMonitor}): per group, the sum over its topic's partitions of end offset minus committed
 * offset (its retry topics left out). Committed offsets trail what a group has processed by up to its commit interval,
 * so the readings are an upper bound of the backlog.
 *
 * <p>Runs on its own thread with its own Admin client; {@link #samples} and {@link #close} from any thread.
 */
final class GroupLagSampler implements AutoCloseable {
    private static final Duration TIMEOUT = Duration.ofSeconds(10);

    /** One reading: wall-clock millis and each group's lag in records. */
    record Sample(long atMillis, Map<String, Long> lag) {}

    private final Admin admin;
    private final ClusterReader reader;
    private final LagMonitor monitor = new LagMonitor(Duration.ofMinutes(1));
    private final Map<String, String> topicOfGroup; // group -> its source topic, in the order given
    private final List<Sample> samples = new ArrayList<>(); // guarded by this
    private final Thread thread;
    private volatile boolean stopped;
    private volatile String lastFailure;

    private GroupLagSampler(String bootstrapServers, Map<String, String> topicOfGroup) {
        this.admin = Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers));
        this.reader = new ClusterReader(admin, Clock.systemUTC(), TIMEOUT);
        this.topicOfGroup = new LinkedHashMap<>(topicOfGroup); // read only
        this.thread = Thread.ofPlatform().name("group-lag-sampler").daemon().unstarted(this::loop);
    }

    /** Starts reading the lag of each group of {@code topicOfGroup} on its topic. */
    static GroupLagSampler start(String bootstrapServers, Map<String, String> topicOfGroup) {
        GroupLagSampler sampler = new GroupLagSampler(bootstrapServers, topicOfGroup);
        sampler.thread.start();
        return sampler;
    }

    /** Waits until every group is stable with at least one member, so that the load meets consumers at work. */
    void awaitStable(long timeoutMillis) throws Exception {
        long deadline = System.currentTimeMillis() + timeoutMillis;
        while (true) {
            List<String> stable = reader.read().groups().stream()
                    .filter(g ->
                            g.state().equalsIgnoreCase("Stable") && !g.members().isEmpty())
                    .map(ClusterView.Group::group)
                    .toList();
            if (stable.containsAll(topicOfGroup.keySet())) {
                return;
            }
            if (System.currentTimeMillis() > deadline) {
                throw new IllegalStateException(
                        "consumer groups not stable: stable are " + stable + " of " + topicOfGroup.keySet());
            }
            Thread.sleep(200); // polling the group coordinator for the groups' state
        }
    }

    private void loop() {
        while (!stopped) {
            long at = System.currentTimeMillis();
            try {
                LagSnapshot snapshot = monitor.update(reader.read(), Map.of());
                Map<String, Long> lag = new LinkedHashMap<>();
                topicOfGroup.keySet().forEach(group -> lag.put(group, 0L));
                for (LagSnapshot.GroupLag group : snapshot.groups()) {
                    String topic = topicOfGroup.get(group.group());
                    if (topic != null) {
                        lag.put(
                                group.group(),
                                group.partitions().stream()
                                        .filter(p -> p.topic().equals(topic))
                                        .mapToLong(LagSnapshot.PartitionLag::lag)
                                        .sum());
                    }
                }
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
        thread.join(TIMEOUT.toMillis());
        admin.close();
    }
}
