package io.orderflow.platform;

import io.orderflow.postgres.PostgresConfiguration;
import io.orderflow.process.ChildProcesses;
import io.orderflow.process.ServiceProcess;
import java.io.PrintStream;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;

/**
 * The one-command local platform's entry point ({@code ./run-platform} builds and runs it), and its companions
 * {@code status}, {@code stop}, {@code logs}, {@code kill} and {@code start} ({@link PlatformCommands}); its command
 * line is {@link PlatformCommandLine}.
 *
 * <p>Starts a {@link LocalPlatform}, prints a {@link StartupReport} and a final line saying it is ready (scripts
 * wait for "is ready"), then parks the main thread. A service that exits on its own while the platform runs is
 * reported at once, with the end of its log; it is not restarted by itself, but {@code ./run-platform start SERVICE}
 * (through the {@link PlatformControl} port) starts it again, and {@code kill SERVICE} crashes it on purpose. The
 * broker is the exception: when it dies by itself, the {@link BrokerSupervisor} starts it again on its log.
 *
 * <p><b>Stopping.</b> The shutdown hook is installed before anything starts, so Ctrl-C or SIGTERM at any moment,
 * start-up included, stops what has started: the whole platform once it is up, else every service process started so
 * far, the broker included ({@link ChildProcesses#stopAll}, which also refuses to start more), while PostgreSQL's own
 * hook stops it. {@code kill -9} of the launcher leaves its services running; {@code ./run-platform stop}
 * stops them, and so does the next start (their pid files). The launcher's {@link PlatformState} is written before the
 * start and deleted after a clean stop.
 *
 * <p>Exit codes: 0 after {@code --help}, 1 if the platform did not start, 2 for a bad command line; a stop by signal
 * ends the JVM with the signal's code (143 for SIGTERM).
 */
public final class PlatformLauncher {

    static final String READY = "orderflow platform is ready. Press Ctrl-C (or send SIGTERM) to stop.";

    private PlatformLauncher() {}

    public static void main(String[] args) {
        System.exit(PlatformCommandLine.commandLine().execute(args));
    }

    /**
     * Starts the platform {@code options} describe and keeps it running until the JVM shuts down; returns 1 only if it
     * did not start.
     */
    static int launch(LaunchOptions options) throws InterruptedException {
        PrintStream out = System.out;
        Path stateFile = PlatformState.file(options.postgresDirectory());
        AtomicReference<LocalPlatform> running = new AtomicReference<>();
        AtomicBoolean stopping = new AtomicBoolean();
        Runtime.getRuntime()
                .addShutdownHook(new Thread(
                        () -> {
                            stopping.set(true);
                            out.println("Stopping the orderflow platform...");
                            LocalPlatform platform = running.get();
                            if (platform != null) {
                                platform.close();
                            }
                            ChildProcesses.stopAll(); // what a start cut short had started; none once it is up
                            PlatformState.delete(stateFile);
                            out.println("orderflow platform stopped.");
                        },
                        "platform-shutdown"));
        long pid = ProcessHandle.current().pid();
        PlatformState.starting(pid).write(stateFile);

        LocalPlatform platform;
        try {
            platform = LocalPlatform.start(PostgresConfiguration.fromEnvironment(), options);
        } catch (RuntimeException e) {
            if (stopping.get()) {
                new CountDownLatch(1).await(); // stopped by a signal while starting: the hook reports and stops
            }
            System.err.println("orderflow platform did not start: " + e.getMessage());
            return 1;
        }
        running.set(platform);
        AtomicReference<PlatformControl> control = new AtomicReference<>();
        AtomicReference<BrokerSupervisor> supervisor = new AtomicReference<>();
        Runnable writeState = () -> new PlatformState(
                        pid, control.get().uri(), broker(platform, supervisor.get()), services(platform))
                .write(stateFile);
        supervisor.set(new BrokerSupervisor(platform, stopping, writeState, System.err, System::nanoTime));
        control.set(PlatformControl.start(
                platform,
                process -> {
                    watch(platform, process, stopping);
                    writeState.run();
                },
                () -> {
                    platform.broker().ifPresent(supervisor.get()::watch);
                    writeState.run();
                }));
        writeState.run();
        platform.broker().ifPresent(supervisor.get()::watch);
        for (ServiceProcess service : platform.services()) {
            watch(platform, service, stopping);
        }

        out.print(StartupReport.render(platform));
        out.println();
        out.println(READY);
        out.flush();
        new CountDownLatch(1).await(); // until the JVM shuts down; the hook does the stopping
        return 0;
    }

    private static List<PlatformState.Service> services(LocalPlatform platform) {
        List<PlatformState.Service> services = new ArrayList<>();
        List<String> instances = platform.instances();
        for (int i = 0; i < instances.size(); i++) {
            ServiceProcess process = platform.services().get(i);
            services.add(
                    new PlatformState.Service(instances.get(i), process.pid(), process.baseUri(), process.logFile()));
        }
        return services;
    }

    private static PlatformState.Broker broker(LocalPlatform platform, BrokerSupervisor supervisor) {
        return platform.broker()
                .map(broker -> new PlatformState.Broker(
                        broker.bootstrapServers(),
                        broker.http("/metrics"),
                        broker.pid(),
                        broker.logFile(),
                        supervisor.restarts(),
                        supervisor.lastExitCode()))
                .orElse(PlatformState.Broker.external(platform.bootstrapServers()));
    }

    /** Reports {@code process} if it exits while the platform runs (a crash, or a kill or stop on request). */
    private static void watch(LocalPlatform platform, ServiceProcess process, AtomicBoolean stopping) {
        String instance = platform.instances().get(platform.services().indexOf(process));
        process.onExit().thenAccept(code -> {
            if (!stopping.get()) {
                System.err.printf(
                        "%norderflow platform: %s (pid %d) exited with code %d and is not restarted;"
                                + " ./run-platform status shows it, ./run-platform start %s starts it again."
                                + " The end of %s:%n%s%n%n",
                        instance, process.pid(), code, instance, process.logFile(), process.tail(20));
            }
        });
    }
}
