package io.orderflow.process;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.OptionalInt;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;

/**
 * Every child process the benchmarks, the launcher's services and the test harnesses start (brokers, services,
 * Kafka's tools, foreign clients) is started here, so that none outlives its owner: on a normal end each is stopped
 * by whoever started it, and if a benchmark is interrupted (Ctrl-C, SIGTERM) its shutdown hook calls
 * {@link #stopAll}. {@code ops/bin/bench/kafka-perf} additionally stops the whole process group from its trap, for the
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

    /**
     * Kills (SIGKILL) the process {@code pidFile} names if it is still alive and its command line contains {@code
     * mark} (the jar or main class it runs): an orphan of an earlier owner that was itself killed with {@code kill -9}.
     * The pid file is deleted; an unreadable one names nothing that could safely be stopped, and is left.
     */
    public static void reclaimOrphan(Path pidFile, String mark) {
        if (!Files.isRegularFile(pidFile)) {
            return;
        }
        try {
            long pid = Long.parseLong(Files.readString(pidFile).trim());
            ProcessHandle.of(pid)
                    .filter(ProcessHandle::isAlive)
                    .filter(handle -> handle.info()
                            .commandLine()
                            .map(line -> line.contains(mark))
                            .orElse(false))
                    .ifPresent(orphan -> {
                        System.err.println("Stopping " + mark + " (pid " + pid + ") left by an earlier launcher");
                        orphan.destroyForcibly();
                        orphan.onExit().join();
                    });
            Files.delete(pidFile);
        } catch (IOException | NumberFormatException e) {
            // An unreadable pid file names nothing that could safely be stopped.
        }
    }

    /** A port free on the loopback interface at the time of the call. */
    public static int freeLoopbackPort() {
        return freeLoopbackPorts(1).getFirst();
    }

    /** Where free ports are looked for when the kernel's ephemeral range leaves no room below it. */
    private static final int LOWEST_CANDIDATE = 10_000;

    /**
     * {@code count} distinct ports free on the loopback interface at the time of the call: each is held until all
     * are found, so no two are the same.
     *
     * <p>The caller gives each port to a child process that binds it a moment later. Ports are taken below the
     * kernel's ephemeral range ({@code /proc/sys/net/ipv4/ip_local_port_range}, where {@code bind(0)} and every
     * outgoing connection take theirs), at random: a port from {@code bind(0)} is in that range, and any connection
     * opened meanwhile by any process (a test's Kafka client, say) may take it as its local port before the child
     * binds, which fails the child's start with "port in use". Where the range leaves no room below it, {@code bind(0)}
     * it is.
     */
    public static List<Integer> freeLoopbackPorts(int count) {
        int ephemeralLow = ephemeralRangeLow();
        java.util.Random random = new java.util.Random();
        List<ServerSocket> sockets = new ArrayList<>();
        try {
            List<Integer> ports = new ArrayList<>();
            for (int attempt = 0; ports.size() < count; attempt++) {
                boolean below = ephemeralLow > LOWEST_CANDIDATE + 1000 && attempt < 100 * count;
                int candidate = below ? LOWEST_CANDIDATE + random.nextInt(ephemeralLow - LOWEST_CANDIDATE) : 0;
                ServerSocket socket = new ServerSocket();
                sockets.add(socket);
                try {
                    socket.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), candidate));
                } catch (IOException taken) {
                    if (candidate == 0) {
                        throw taken;
                    }
                    continue; // in use: try another
                }
                ports.add(socket.getLocalPort());
            }
            return ports;
        } catch (IOException e) {
            throw new UncheckedIOException("No free loopback port", e);
        } finally {
            for (ServerSocket socket : sockets) {
                try {
                    socket.close();
                } catch (IOException ignored) {
                    // the port is released either way
                }
            }
        }
    }

    /** The lowest port of the kernel's ephemeral range, or 0 when it cannot be read (not Linux). */
    static int ephemeralRangeLow() {
        try {
            String range = Files.readString(Path.of("/proc/sys/net/ipv4/ip_local_port_range"))
                    .trim();
            return Integer.parseInt(range.split("\\s+")[0]);
        } catch (IOException | RuntimeException e) {
            return 0;
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
