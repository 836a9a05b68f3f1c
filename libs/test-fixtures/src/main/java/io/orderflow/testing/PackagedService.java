package io.orderflow.testing;

import io.orderflow.postgres.PostgresDatabase;
import io.orderflow.process.ServiceProcess;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;

/**
 * A module's packaged consuming service ({@code target/quarkus-app/quarkus-run.jar}, so only after the package phase:
 * {@code *IT} tests) pointed at a test's database and broker, with its log in {@code target/<logName>.log}; ready when
 * {@code /q/health/ready} answers. Its two channels ({@code orders}, {@code orders-retry}) use the shortest session
 * the broker allows: a killed instance's members hold their partitions until their sessions expire (45 s by default),
 * and the tests that kill one restart it at once.
 */
public final class PackagedService {

    private PackagedService() {}

    public static ServiceProcess.Builder builder(
            String module, PostgresDatabase database, String bootstrapServers, String logName) {
        return builder(
                module, Path.of("target", "quarkus-app", "quarkus-run.jar"), database, bootstrapServers, logName);
    }

    /** The same, for a test in another module: {@code jar} is the service's {@code quarkus-run.jar}. */
    public static ServiceProcess.Builder builder(
            String module, Path jar, PostgresDatabase database, String bootstrapServers, String logName) {
        return ServiceProcess.builder(module, jar)
                .jvmOptions(List.of("-Xmx256m"))
                .properties(database.quarkusDatasource())
                .property("kafka.bootstrap.servers", bootstrapServers)
                .property("mp.messaging.incoming.orders.session.timeout.ms", "6000")
                .property("mp.messaging.incoming.orders-retry.session.timeout.ms", "6000")
                // The tests of a service's behaviour start it without the warm-up, a second of every start
                // (InventoryProcessIT turns it on for one start).
                .property("orderflow.consumer.warm-up.rounds", "0")
                .logFile(Path.of("target", logName + ".log"))
                .readinessPath("/q/health/ready", Duration.ofSeconds(90));
    }

    /** Events the service skipped as already applied since it started (its {@code orderflow_consumer_events_total}). */
    public static double duplicatesSkipped(ServiceProcess service) {
        return service.metrics()
                .lines()
                .filter(line ->
                        line.startsWith("orderflow_consumer_events_total{") && line.contains("outcome=\"duplicate\""))
                .mapToDouble(line -> Double.parseDouble(line.substring(line.lastIndexOf(' ') + 1)))
                .sum();
    }
}
