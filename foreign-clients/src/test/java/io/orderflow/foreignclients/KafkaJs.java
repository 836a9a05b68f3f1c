package io.orderflow.foreignclients;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
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
        String node = run(List.of("node", "--version"), source, Duration.ofSeconds(30));
        Assumptions.assumeTrue(
                node != null, "Node.js is not installed: apt-get install nodejs npm; .ci/run installs them");
        try {
            Files.createDirectories(target);
            for (String file : List.of("package.json", "package-lock.json", "client.js")) {
                Files.copy(source.resolve(file), target.resolve(file), StandardCopyOption.REPLACE_EXISTING);
            }
            Path installed = target.resolve("node_modules/kafkajs/package.json");
            if (!Files.exists(installed)) {
                String npm = run(List.of("npm", "ci", "--no-audit", "--no-fund"), target, Duration.ofMinutes(5));
                if (npm == null) {
                    throw new IllegalStateException("npm ci failed in " + target + "; see its output above");
                }
            }
            String manifest = Files.readString(installed);
            String v = manifest.replaceAll("(?s).*\"version\"\\s*:\\s*\"([^\"]+)\".*", "$1");
            return new KafkaJs(target, "KafkaJS " + v + " (Node.js " + node.trim() + ")");
        } catch (IOException e) {
            throw new IllegalStateException("Cannot set up KafkaJS in " + target, e);
        }
    }

    /** The command's output if it exits 0, else null (its output printed for the test log). */
    private static String run(List<String> command, Path dir, Duration timeout) {
        try {
            Process p = new ProcessBuilder(command)
                    .directory(dir.toFile())
                    .redirectErrorStream(true)
                    .start();
            String out = new String(p.getInputStream().readAllBytes());
            if (!p.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS) || p.exitValue() != 0) {
                System.out.println("$ " + String.join(" ", command) + "\n" + out);
                return null;
            }
            return out;
        } catch (IOException e) {
            System.out.println("$ " + String.join(" ", command) + ": " + e.getMessage());
            return null;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
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
    public void produce(String bootstrap, String topic, List<String> lines, Path workDir) {
        ClientProcess producer = ClientProcess.start(
                        "kafkajs-producer",
                        List.of("node", dir.resolve("client.js").toString(), "produce", bootstrap, topic),
                        workDir,
                        ENV,
                        String.join("\n", lines) + "\n")
                .awaitSuccess(Duration.ofSeconds(120));
        if (!producer.stdoutLines().contains("sent " + lines.size())) {
            throw new AssertionError("KafkaJS did not report all sent\n" + producer.transcript());
        }
    }

    @Override
    public ClientProcess groupMember(String bootstrap, String topic, String group, String memberName, Path workDir) {
        return ClientProcess.start(
                "kafkajs-" + memberName,
                List.of("node", dir.resolve("client.js").toString(), "consume", bootstrap, topic, group),
                workDir,
                ENV,
                "");
    }
}
