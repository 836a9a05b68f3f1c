package io.orderflow.foreignclients;

import io.orderflow.process.ChildProcesses;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;

/**
 * An older release of Apache Kafka's Java client ({@code kafka-clients} 2.x or 3.x), each in a child JVM whose
 * classpath is {@link JavaClientScenario} and that release's jar from {@code target/java-clients/<version>/}: no 4.x
 * class can be on it, so the client negotiates the versions it knows.
 */
final class JavaClient implements ForeignClient {
    private final String version;

    JavaClient(String version) {
        this.version = version;
    }

    /** The releases the build copied (the module's pom names them). */
    static List<String> versions() {
        return Arrays.asList(
                System.getProperty("java.clients.versions", "2.8.2,3.9.1").split(","));
    }

    @Override
    public String name() {
        return "Apache Kafka Java client (kafka-clients) " + version;
    }

    @Override
    public String slug() {
        return "java-" + version.replace('.', '-');
    }

    private List<String> command(String... args) {
        Path clients = Path.of(System.getProperty("java.clients.dir", "target/java-clients"));
        Path jars = clients.resolve(version);
        if (!Files.isDirectory(jars)) {
            throw new IllegalStateException("No kafka-clients " + version + " in " + jars
                    + "; ./mvnw -pl foreign-clients " + "generate-test-resources copies it");
        }
        String testClasses = Path.of(JavaClientScenario.class
                        .getProtectionDomain()
                        .getCodeSource()
                        .getLocation()
                        .getPath())
                .toString();
        List<String> command = new ArrayList<>(List.of(
                ChildProcesses.java(),
                "-Xmx128m",
                "-XX:+UseSerialGC",
                "-XX:TieredStopAtLevel=1",
                "-Dorg.slf4j.simpleLogger.defaultLogLevel=warn",
                "-cp",
                testClasses + ":" + jars + "/*:" + clients.resolve("logging") + "/*",
                JavaClientScenario.class.getName()));
        command.addAll(List.of(args));
        return command;
    }

    @Override
    public void produce(Connection broker, String topic, List<String> lines, Path dir) {
        ClientProcess.produce(
                        slug() + "-producer",
                        command("produce", broker.bootstrap(), topic),
                        dir,
                        broker.environment(Map.of()),
                        lines)
                .assertPrinted("sent " + lines.size());
    }

    @Override
    public ClientProcess groupMember(Connection broker, String topic, String group, String memberName, Path dir) {
        return ClientProcess.start(
                slug() + "-" + memberName,
                command("consume", broker.bootstrap(), topic, group),
                dir,
                broker.environment(Map.of()),
                "");
    }
}
