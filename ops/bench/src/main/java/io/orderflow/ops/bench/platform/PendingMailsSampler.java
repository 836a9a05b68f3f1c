package io.orderflow.ops.bench.platform;

import io.orderflow.lag.LagStatus;
import io.orderflow.ops.load.PrometheusText;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.OptionalDouble;
import java.util.function.Supplier;

/**
 * notification-service's pending mails (written, not yet accepted by the SMTP server) as the service counts them
 * itself: its gauge {@value #GAUGE} on {@code /q/metrics}, which its sender refreshes every 5 s (notification-service's
 * README). Read every {@link #INTERVAL}: more often would read the same count again, and every read makes the service
 * render all its meters, CPU taken from what is measured. Not counted in its database: the table is the service's
 * own, and counting its pending rows scans them (75 ms at 200,000 pending, 2026-12-03), which the service already
 * does once per 5 s.
 *
 * <p>Runs on its own thread; {@link #readings} and {@link #close} from any thread.
 */
final class PendingMailsSampler implements AutoCloseable {
    static final String GAUGE = "orderflow_notifications_pending";
    static final Duration INTERVAL = Duration.ofSeconds(5);

    private final Supplier<String> metrics;
    private final List<LagStatus.Reading> readings = new ArrayList<>(); // guarded by this
    private final Thread thread;
    private volatile boolean stopped;
    private volatile String lastFailure;

    private PendingMailsSampler(Supplier<String> metrics) {
        this.metrics = metrics;
        this.thread = Thread.ofPlatform().name("pending-mails-sampler").daemon().unstarted(this::loop);
    }

    /** Starts reading the gauge from {@code metrics}, the service's Prometheus text. */
    static PendingMailsSampler start(Supplier<String> metrics) {
        PendingMailsSampler sampler = new PendingMailsSampler(metrics);
        sampler.thread.start();
        return sampler;
    }

    /** The gauge's value in {@code exposition}, if it is there. */
    static OptionalDouble pending(String exposition) {
        return PrometheusText.value(exposition, GAUGE, "");
    }

    private void loop() {
        while (!stopped) {
            long at = System.currentTimeMillis();
            OptionalDouble pending = pending(metrics.get());
            if (pending.isPresent()) {
                synchronized (this) {
                    readings.add(new LagStatus.Reading(at, -1, (long) pending.getAsDouble()));
                }
            } else {
                lastFailure = "no " + GAUGE + " in notification-service's metrics";
            }
            try {
                Thread.sleep(Math.max(0, at + INTERVAL.toMillis() - System.currentTimeMillis())); // the gauge's period
            } catch (InterruptedException e) {
                return;
            }
        }
    }

    /** The readings (pending mails as the reading's lag) taken from {@code fromMillis} to {@code toMillis}. */
    synchronized List<LagStatus.Reading> readings(long fromMillis, long toMillis) {
        return readings.stream()
                .filter(r -> r.atMillis() >= fromMillis && r.atMillis() <= toMillis)
                .toList();
    }

    String lastFailure() {
        return lastFailure;
    }

    @Override
    public void close() throws InterruptedException {
        stopped = true;
        thread.interrupt();
        thread.join(INTERVAL.toMillis() * 2);
    }
}
