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
 * {@code status}, {@code stop} and {@code logs SERVICE} ({@link PlatformCommands}).
 *
 * <p>Starts a {@link LocalPlatform}, prints a {@link StartupReport} and a final line saying it is ready (scripts
 * wait for "is ready"), then parks the main thread. A service that exits on its own while the platform runs is
 * reported at once, with the end of its log; it is not restarted by itself, but {@code ./run-platform start SERVICE}
 * (through the {@link PlatformControl} port) starts it again, and {@code kill SERVICE} crashes it on purpose.
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

    public static void main(String[] args) throws InterruptedException {
        PrintStream out = System.out;
        if (args.length > 0 && PlatformCommands.COMMANDS.contains(args[0])) {
            System.exit(command(args, out));
            return;
        }
        LaunchOptions options;
        try {
            options = LaunchOptions.parse(args);
        } catch (InvalidArgumentsException e) {
            System.err.println(e.getMessage());
            System.err.println();
            System.err.print(LaunchOptions.USAGE);
            System.exit(2);
            return;
        }
        if (options.help()) {
            out.print(LaunchOptions.USAGE);
            return;
        }

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
            System.exit(1);
            return;
        }
        running.set(platform);
        AtomicReference<PlatformControl> control = new AtomicReference<>();
        Runnable writeState = () ->
                new PlatformState(pid, control.get().uri(), broker(platform), services(platform)).write(stateFile);
        control.set(PlatformControl.start(
                platform,
                process -> {
                    watch(platform, process, stopping);
                    writeState.run();
                },
                () -> {
                    watchBroker(platform, stopping);
                    writeState.run();
                }));
        writeState.run();
        watchBroker(platform, stopping);
        for (ServiceProcess service : platform.services()) {
            watch(platform, service, stopping);
        }

        out.print(StartupReport.render(platform));
        out.println();
        out.println(READY);
        out.flush();
        new CountDownLatch(1).await(); // until the JVM shuts down; the hook does the stopping
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

    private static PlatformState.Broker broker(LocalPlatform platform) {
        return platform.broker()
                .map(broker -> new PlatformState.Broker(
                        broker.bootstrapServers(), broker.http("/metrics"), broker.pid(), broker.logFile()))
                .orElse(PlatformState.Broker.external(platform.bootstrapServers()));
    }

    /** Reports the broker's current process if it exits while the platform runs. */
    private static void watchBroker(LocalPlatform platform, AtomicBoolean stopping) {
        platform.broker()
                .ifPresent(broker -> broker.onExit().thenAccept(code -> {
                    if (!stopping.get()) {
                        System.err.printf(
                                "%norderflow platform: %s (pid %d) exited with code %d and is not restarted; the services"
                                        + " retry until it is back. ./run-platform start %s starts it again. The end of"
                                        + " %s:%n%s%n%n",
                                BrokerProcess.NAME,
                                broker.pid(),
                                code,
                                BrokerProcess.NAME,
                                broker.logFile(),
                                broker.tail(20));
                    }
                }));
    }

    /** Reports {@code process} if it exits while the platform runs (a crash, or a kill on request). */
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

    /** {@code status}, {@code stop} or {@code logs SERVICE}, with an optional {@code --postgres-dir DIR}. */
    private static int command(String[] args, PrintStream out) throws InterruptedException {
        Path postgresDirectory = LaunchOptions.DEFAULT_POSTGRES_DIRECTORY;
        List<String> operands = new ArrayList<>();
        for (int i = 1; i < args.length; i++) {
            if (args[i].equals("--postgres-dir") && i + 1 < args.length) {
                postgresDirectory = Path.of(args[++i]);
            } else if (args[i].startsWith("--postgres-dir=")) {
                postgresDirectory = Path.of(args[i].substring("--postgres-dir=".length()));
            } else if (args[i].startsWith("-")) {
                System.err.println(
                        "Unknown argument '" + args[i] + "' for " + args[0] + "; it takes only --postgres-dir DIR.");
                return 2;
            } else {
                operands.add(args[i]);
            }
        }
        return new PlatformCommands(postgresDirectory, out, System.err).run(args[0], operands);
    }
}
