package io.orderflow.lag;

import io.orderflow.kafka.KafkaClientSettings;
import io.quarkus.runtime.ShutdownEvent;
import io.quarkus.runtime.StartupEvent;
import jakarta.enterprise.event.Observes;
import jakarta.inject.Singleton;
import java.time.Clock;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicReference;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.eclipse.microprofile.config.Config;
import org.jboss.logging.Logger;

/**
 * Reads the cluster every {@code interval} on a thread of its own, from start-up to shutdown, and keeps the latest
 * {@link LagSnapshot} for the HTTP API and the metrics. A reading that fails (the cluster away) is logged and tried
 * again at the next interval; the last good snapshot stays, with its time. Thread-safe.
 */
@Singleton
public class LagPoller implements Runnable {

    private static final Logger LOG = Logger.getLogger(LagPoller.class);

    private final KafkaClientSettings cluster;
    private final LagMonitorConfig config;
    private final LagMetrics metrics;
    private final AtomicReference<LagSnapshot> latest = new AtomicReference<>();
    private final Deque<LagHistory.Point> history = new ArrayDeque<>(); // guarded by itself
    private volatile String lastFailure;
    private volatile boolean stopping;
    private Thread thread;

    LagPoller(
            Config configuration, // the cluster: kafka.bootstrap.servers and the other kafka.* client settings
            LagMonitorConfig config,
            LagMetrics metrics) {
        this.cluster = KafkaClientSettings.fromConfig(configuration);
        this.config = config;
        this.metrics = metrics;
    }

    void start(@Observes StartupEvent event) {
        thread = Thread.ofPlatform().name("lag-poller").start(this);
    }

    void stop(@Observes ShutdownEvent event) throws InterruptedException {
        stopping = true;
        if (thread != null) {
            thread.interrupt();
            thread.join(config.timeout().toMillis());
        }
    }

    /** The latest snapshot, if a reading succeeded yet. */
    public Optional<LagSnapshot> latest() {
        return Optional.ofNullable(latest.get());
    }

    /** The lag of every group at each reading of the last {@code history}, oldest first. */
    public List<LagHistory.Point> history() {
        synchronized (history) {
            return List.copyOf(history);
        }
    }

    private void remember(LagSnapshot snapshot) {
        LagHistory.Point point = LagHistory.Point.of(snapshot);
        synchronized (history) {
            history.addLast(point);
            while (history.getFirst().at() < point.at() - config.history().toMillis()) {
                history.removeFirst();
            }
        }
    }

    /** Why the last reading failed, or null if it did not. */
    public String lastFailure() {
        return lastFailure;
    }

    @Override
    public void run() {
        LagMonitor monitor = new LagMonitor(config.window());
        try (Admin admin = Admin.create(
                        cluster.admin(Map.of(AdminClientConfig.CLIENT_ID_CONFIG, "orderflow-lag-monitor")));
                RecordTimestamps timestamps = new RecordTimestamps(cluster, config.timeout())) {
            ClusterReader reader = new ClusterReader(admin, Clock.systemUTC(), config.timeout());
            while (!stopping) {
                long started = System.nanoTime();
                try {
                    ClusterView view = reader.read();
                    LagSnapshot snapshot = monitor.update(view, timestamps.at(LagMonitor.wantedTimestamps(view)));
                    latest.set(snapshot);
                    remember(snapshot);
                    metrics.publish(snapshot);
                    lastFailure = null;
                } catch (InterruptedException e) {
                    return;
                } catch (Exception e) {
                    if (lastFailure == null) {
                        LOG.warnf("reading the cluster at %s failed: %s", cluster.bootstrapServers(), e);
                    }
                    lastFailure = e.toString();
                }
                long waitMillis = config.interval().toMillis() - (System.nanoTime() - started) / 1_000_000;
                if (waitMillis > 0) {
                    Thread.sleep(waitMillis); // the reading interval
                }
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
