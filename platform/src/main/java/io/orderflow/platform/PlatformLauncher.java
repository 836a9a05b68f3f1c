package io.orderflow.platform;

import io.orderflow.postgres.PostgresConfiguration;
import java.io.PrintStream;
import java.util.concurrent.CountDownLatch;

/**
 * The one-command local platform's entry point ({@code ./run-platform} builds and runs it).
 *
 * <p>Starts a {@link LocalPlatform}, prints a {@link StartupReport} and a final line saying it is ready (scripts
 * wait for "is ready"), then parks the main thread. Ctrl-C or SIGTERM runs the shutdown hook, which stops
 * everything in reverse order of start and says so. {@code kill -9} leaves an orphaned postmaster, which the next
 * start reclaims, and broker partitions without their clean-shutdown marker, which the next start validates.
 * Exit codes: 0 after a clean stop or {@code --help}, 1 if the platform did not start, 2 for a bad command line.
 */
public final class PlatformLauncher {

    static final String READY = "orderflow platform is ready. Press Ctrl-C (or send SIGTERM) to stop.";

    private PlatformLauncher() {}

    public static void main(String[] args) throws InterruptedException {
        PrintStream out = System.out;
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

        LocalPlatform platform;
        try {
            platform = LocalPlatform.start(PostgresConfiguration.fromEnvironment(), options);
        } catch (RuntimeException e) {
            System.err.println("orderflow platform did not start: " + e.getMessage());
            System.exit(1);
            return;
        }
        Runtime.getRuntime()
                .addShutdownHook(new Thread(
                        () -> {
                            out.println("Stopping the orderflow platform...");
                            platform.close();
                            out.println("orderflow platform stopped.");
                        },
                        "platform-shutdown"));

        out.print(StartupReport.render(platform));
        out.println();
        out.println(READY);
        out.flush();
        new CountDownLatch(1).await(); // until the JVM shuts down; the hook does the stopping
    }
}
