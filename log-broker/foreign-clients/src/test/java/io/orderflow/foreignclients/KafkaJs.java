package io.orderflow.foreignclients;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Assumptions;

/**
 * KafkaJS, the most used pure-JavaScript Kafka client, at the version pinned in {@code src/test/kafkajs/package.json}
 * and its lock file, installed with {@code npm ci} into {@code target/kafkajs} and driven through
 * {@code client.js} there.
 */
final class KafkaJs implements ForeignClient {
    private static final Map<String, String> ENV = Map.of("KAFKAJS_NO_PARTITIONER_WARNING", "1");

    private final Path dir;
    private final String version;

    private KafkaJs(Path dir, String version) {
        this.dir = dir;
        this.version = version;
    }

    /**
     * The pinned KafkaJS, installed on first use; skipped, saying how to get it, where Node.js and npm are missing
     * ({@code .ci/run} installs them).
     */
    static synchronized KafkaJs installed() {
        Path source = Path.of(System.getProperty("kafkajs.source", "src/test/kafkajs"));
        Path target = Path.of(System.getProperty("kafkajs.dir", "target/kafkajs"));
        Optional<String> node = ClientProcess.output(List.of("node", "--version"), source, Duration.ofSeconds(30));
        Assumptions.assumeTrue(
                node.isPresent(), "Node.js is not installed: apt-get install nodejs npm; .ci/run installs them");
        try {
            Files.createDirectories(target);
            for (String file : List.of("package.json", "package-lock.json", "client.js")) {
                Files.copy(source.resolve(file), target.resolve(file), StandardCopyOption.REPLACE_EXISTING);
            }
            Path installed = target.resolve("node_modules/kafkajs/package.json");
            if (!Files.exists(installed)) {
                if (ClientProcess.output(List.of("npm", "ci", "--no-audit", "--no-fund"), target, Duration.ofMinutes(5))
                        .isEmpty()) {
                    throw new IllegalStateException("npm ci failed in " + target + "; see its output above");
                }
            }
            String manifest = Files.readString(installed);
            String v = manifest.replaceAll("(?s).*\"version\"\\s*:\\s*\"([^\"]+)\".*", "$1");
            return new KafkaJs(
                    target, "KafkaJS " + v + " (Node.js " + node.get().trim() + ")");
        } catch (IOException e) {
            throw new IllegalStateException("Cannot set up KafkaJS in " + target, e);
        }
    }

    @Override
    public String name() {
        return version;
    }

    @Override
    public String slug() {
        return "kafkajs";
    }

    @Override
    public void produce(Connection broker, String topic, List<String> lines, Path workDir) {
        tryToProduce(broker, topic, lines, workDir)
                .awaitSuccess(Duration.ofMinutes(2))
                .assertPrinted("sent " + lines.size());
    }

    /** A producer of {@code lines} that may fail: started, not waited for. */
    ClientProcess tryToProduce(Connection broker, String topic, List<String> lines, Path workDir) {
        return ClientProcess.startProducer(
                "kafkajs-producer",
                List.of("node", dir.resolve("client.js").toString(), "produce", broker.bootstrap(), topic),
                workDir,
                broker.environment(ENV),
                lines);
    }

    @Override
    public ClientProcess groupMember(Connection broker, String topic, String group, String memberName, Path workDir) {
        return ClientProcess.start(
                "kafkajs-" + memberName,
                List.of("node", dir.resolve("client.js").toString(), "consume", broker.bootstrap(), topic, group),
                workDir,
                broker.environment(ENV),
                "");
    }

    /**
     * KafkaJS's transactional producer: each of {@code lines} ({@code commit|abort key value}) is one transaction of one
     * record, committed or aborted as it says; returns once all are done.
     */
    void transact(Connection broker, String topic, List<String> lines, Path workDir) {
        ClientProcess.startProducer(
                        "kafkajs-transactions",
                        List.of("node", dir.resolve("client.js").toString(), "transact", broker.bootstrap(), topic),
                        workDir,
                        broker.environment(ENV),
                        lines)
                .awaitSuccess(Duration.ofMinutes(2))
                .assertPrinted("committed "
                        + lines.stream().filter(l -> l.startsWith("commit ")).count() + " aborted "
                        + lines.stream().filter(l -> l.startsWith("abort ")).count());
    }

    /** The names of the broker's topics, as KafkaJS's admin client lists them. */
    List<String> topics(Connection broker, Path workDir) {
        return ClientProcess.start(
                        "kafkajs-topics",
                        List.of("node", dir.resolve("client.js").toString(), "topics", broker.bootstrap()),
                        workDir,
                        broker.environment(ENV),
                        "")
                .awaitSuccess(Duration.ofMinutes(1))
                .stdoutLines();
    }
}
