package io.orderflow.relay;

import io.orderflow.postgres.PostgresDatabase;
import io.orderflow.process.ServiceProcess;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;

/**
 * The packaged relay ({@code target/quarkus-app/quarkus-run.jar}) running as its own process, as in production,
 * so a test can {@code kill -9} it: the relay's configuration (database, broker, settings) on top of the one service
 * launcher, {@link ServiceProcess}. Output goes to {@code target/relay-<name>.log}. It counts as started when it is
 * live: a relay that is not the leader is not ready, and tests start several.
 */
public final class RelayProcess implements AutoCloseable {

    public static final Path JAR = Path.of("target", "quarkus-app", "quarkus-run.jar");

    private final ServiceProcess service;

    private RelayProcess(ServiceProcess service) {
        this.service = service;
    }

    /** Everything the relay wrote so far. */
    public String log() {
        return service.log();
    }

    public static RelayProcess start(
            String name, PostgresDatabase database, String bootstrapServers, Map<String, String> settings) {
        return start(JAR, name, database, bootstrapServers, settings);
    }

    /** Starts the relay packaged at {@code jar} (another module's tests: {@code ../outbox-relay/target/...}). */
    public static RelayProcess start(
            Path jar, String name, PostgresDatabase database, String bootstrapServers, Map<String, String> settings) {
        ServiceProcess.Builder relay = ServiceProcess.builder("outbox-relay", jar)
                .jvmOptions(java.util.List.of("-Xmx128m"))
                .properties(database.quarkusDatasource())
                .property("kafka.bootstrap.servers", bootstrapServers)
                .properties(settings)
                .logFile(Path.of("target", "relay-" + name + ".log"))
                .readinessPath("/q/health/live", Duration.ofSeconds(60));
        return new RelayProcess(relay.start());
    }

    /** SIGKILL: no shutdown hook, no flush, no goodbye to the database or the broker. */
    public void killNine() {
        service.killNine();
    }

    public int httpStatus(String path) {
        return service.status(path);
    }

    public String get(String path) throws IOException, InterruptedException {
        return service.get(path);
    }

    @Override
    public void close() {
        service.close();
    }
}
