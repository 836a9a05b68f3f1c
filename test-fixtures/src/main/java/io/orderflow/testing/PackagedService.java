package io.orderflow.testing;

import io.orderflow.postgres.PostgresDatabase;
import io.orderflow.process.ServiceProcess;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;

/**
 * A module's packaged Quarkus service ({@code target/quarkus-app/quarkus-run.jar}, so only after the package phase:
 * {@code *IT} tests) pointed at a test's database and broker, with its log in {@code target/<logName>.log}; ready when
 * {@code /q/health/ready} answers.
 */
public final class PackagedService {

    private PackagedService() {}

    public static ServiceProcess.Builder builder(
            String module, PostgresDatabase database, String bootstrapServers, String logName) {
        return ServiceProcess.builder(module, Path.of("target", "quarkus-app", "quarkus-run.jar"))
                .jvmOptions(List.of("-Xmx256m"))
                .properties(database.quarkusDatasource())
                .property("kafka.bootstrap.servers", bootstrapServers)
                .logFile(Path.of("target", logName + ".log"))
                .readinessPath("/q/health/ready", Duration.ofSeconds(90));
    }
}
