package io.orderflow.process;

import java.io.IOException;
import java.time.Duration;
import java.util.List;
import java.util.OptionalInt;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;

/**
 * Every child process the benchmarks, the launcher's services and the test harnesses start (brokers, services,
 * Kafka's tools, foreign clients) is started here, so that none outlives its owner: on a normal end each is stopped
 * by whoever started it, and if a benchmark is interrupted (Ctrl-C, SIGTERM) its shutdown hook calls
 * {@link #stopAll}. {@code ops/bench/kafka-perf} additionally stops the whole process group from its trap, for the
 * case where the JVM itself is killed. Tests install no such hook and stop each child themselves.
 *
 * <p>Thread-safe.
 */
public final class ChildProcesses {
    private static final Set<Process> LIVE = ConcurrentHashMap.newKeySet();
    private static boolean stopping; // guarded by ChildProcesses.class

    private ChildProcesses() {}

    /**
     * Starts {@code builder}'s command and tracks it until {@link #forget}.
     *
     * @throws IOException also once {@link #stopAll} has begun: the benchmark's main thread keeps running while
     *     the shutdown hook stops the children, and must not start new ones behind its back
     */
    public static synchronized Process start(ProcessBuilder builder) throws IOException {
        if (stopping) {
            throw new IOException("The benchmark is stopping; not starting "
                    + builder.command().getFirst());
        }
        Process process = builder.start();
        LIVE.add(process);
        return process;
    }

    public static void forget(Process process) {
        LIVE.remove(process);
    }

    /**
     * SIGTERM to {@code process}, then waits up to {@code grace} for it to exit; if it has not, kills it (and waits
     * up to 10 s more for that). Forgets it either way.
     *
     * @return its exit code if it exited within {@code grace} of SIGTERM (or had already exited), empty if it had
     *     to be killed
     * @throws InterruptedException if interrupted while waiting; the process has then been killed
     */
    public static OptionalInt stop(Process process, Duration grace) throws InterruptedException {
        process.destroy();
        try {
            if (process.waitFor(grace.toMillis(), TimeUnit.MILLISECONDS)) {
                return OptionalInt.of(process.exitValue());
            }
            process.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
            return OptionalInt.empty();
        } catch (InterruptedException e) {
            process.destroyForcibly();
            throw e;
        } finally {
            forget(process);
        }
    }

    /** The java this JVM runs on: brokers and tools run on the same JDK as the benchmark (or test) that starts them. */
    public static String java() {
        return ProcessHandle.current()
                .info()
                .command()
                .orElseThrow(() -> new IllegalStateException("Cannot tell which java runs this JVM"));
    }

    /** SIGTERM to every child still running; those not gone 20 s later are killed. */
    public static void stopAll() {
        List<Process> running;
        synchronized (ChildProcesses.class) {
            stopping = true;
            running = List.copyOf(LIVE);
        }
        running.forEach(Process::destroy);
        for (Process process : running) {
            try {
                if (!process.waitFor(20, TimeUnit.SECONDS)) {
                    process.destroyForcibly();
                }
            } catch (InterruptedException e) {
                process.destroyForcibly();
            }
        }
    }
}
