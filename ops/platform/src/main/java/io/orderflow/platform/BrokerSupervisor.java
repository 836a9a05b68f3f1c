package io.orderflow.platform;

import java.io.PrintStream;
import java.time.Duration;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.LongSupplier;

/**
 * Starts our broker again when its process ends by itself while the platform runs: an Error on one of its threads
 * (exit code 3, see log-broker's {@code FatalErrors}), an OutOfMemoryError, a SIGKILL from outside. A broker that dies
 * comes back on its log with nothing acknowledged lost, so the services, which retry, never need a person for it.
 *
 * <p>Back-off: the first restart waits {@link #FIRST_DELAY}, each further one twice as long as the last, up to {@link
 * #MOST_DELAY}, so a broker that cannot start (a full disk) is not restarted in a tight loop; a broker that then runs
 * for {@link #STABLE_AFTER} starts the count again. Every death and every restart is said on stderr, with the end of
 * the broker's log, and counted for {@code ./run-platform status}. A kill on request ({@code ./run-platform kill
 * log-broker}, the drills) is left down until {@code ./run-platform start log-broker}, as for every service.
 *
 * <p>Thread-safety: deaths are heard on the process's exit thread; restarts run one at a time on one scheduler thread.
 */
final class BrokerSupervisor implements AutoCloseable {
    static final Duration FIRST_DELAY = Duration.ofSeconds(1);
    static final Duration MOST_DELAY = Duration.ofSeconds(30);
    static final Duration STABLE_AFTER = Duration.ofSeconds(60);

    private final LocalPlatform platform;
    private final AtomicBoolean stopping;
    private final Runnable restarted;
    private final PrintStream err;
    private final LongSupplier nanoTime;
    private final ScheduledExecutorService scheduler = Executors.newSingleThreadScheduledExecutor(
            Thread.ofPlatform().name("broker-supervisor").daemon(true).factory());
    private int restarts;
    private int lastExitCode;
    private Duration nextDelay = FIRST_DELAY;
    private long startedNanos;

    /**
     * Watches {@code platform}'s broker; {@code restarted} runs after each restart of its own (to record the new
     * process). Nothing is restarted once {@code stopping} is set.
     */
    BrokerSupervisor(
            LocalPlatform platform,
            AtomicBoolean stopping,
            Runnable restarted,
            PrintStream err,
            LongSupplier nanoTime) {
        this.platform = platform;
        this.stopping = stopping;
        this.restarted = restarted;
        this.err = err;
        this.nanoTime = nanoTime;
        this.startedNanos = nanoTime.getAsLong();
    }

    /** Watches the broker's current process (after the start, and after every start on request or of its own). */
    void watch(BrokerProcess broker) {
        broker.onExit().thenAccept(code -> died(broker, code));
    }

    /** How many times it restarted the broker by itself. */
    synchronized int restarts() {
        return restarts;
    }

    /** The exit code of the broker's last death it restarted from; 0 before any. */
    synchronized int lastExitCode() {
        return lastExitCode;
    }

    private synchronized void died(BrokerProcess broker, int code) {
        if (stopping.get()) {
            return;
        }
        if (platform.brokerDownOnRequest()) {
            err.printf(
                    "%norderflow platform: %s (pid %d) was killed on request and stays down until ./run-platform start"
                            + " %s; the services retry until it is back.%n%n",
                    BrokerProcess.NAME, broker.pid(), BrokerProcess.NAME);
            return;
        }
        if (nanoTime.getAsLong() - startedNanos >= STABLE_AFTER.toNanos()) {
            nextDelay = FIRST_DELAY;
        }
        Duration delay = takeDelay();
        lastExitCode = code;
        err.printf(
                "%norderflow platform: %s (pid %d) exited with code %d by itself; starting it again on its log in %d s."
                        + " The end of %s:%n%s%n%n",
                BrokerProcess.NAME, broker.pid(), code, delay.toSeconds(), broker.logFile(), broker.tail(20));
        scheduler.schedule(this::restart, delay.toMillis(), TimeUnit.MILLISECONDS);
    }

    private void restart() {
        try {
            platform.restartBrokerThatDied().ifPresent(broker -> {
                synchronized (this) {
                    restarts++;
                    startedNanos = nanoTime.getAsLong();
                }
                err.printf(
                        "orderflow platform: %s started again by itself (pid %d), restart %d.%n",
                        BrokerProcess.NAME, broker.pid(), restarts());
                restarted.run();
                watch(broker);
            });
        } catch (RuntimeException e) {
            Duration delay = takeDelay();
            if (!stopping.get()) {
                err.printf(
                        "orderflow platform: %s did not start again (%s); trying again in %d s.%n",
                        BrokerProcess.NAME, e.getMessage(), delay.toSeconds());
                scheduler.schedule(this::restart, delay.toMillis(), TimeUnit.MILLISECONDS);
            }
        }
    }

    /** The wait before the next restart; the one after it twice as long, up to {@link #MOST_DELAY}. */
    private synchronized Duration takeDelay() {
        Duration delay = nextDelay;
        Duration doubled = nextDelay.multipliedBy(2);
        nextDelay = doubled.compareTo(MOST_DELAY) > 0 ? MOST_DELAY : doubled;
        return delay;
    }

    @Override
    public void close() {
        scheduler.shutdownNow();
    }
}
