package io.orderflow.platform;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The options a service gets for its AOT cache, tried on a real JVM of this JDK ({@code java -version} stands in for a
 * service: it exits normally, so the training run writes its cache): no cache trains one, the next start opens it, a
 * rebuilt application trains a new one and the old one goes, and each instance keeps its own.
 */
class AotCachesTest {

    @TempDir
    Path caches;

    @TempDir
    Path application;

    @BeforeEach
    void anApplication() throws IOException {
        Files.createDirectories(application.resolve("lib"));
        Files.writeString(application.resolve("quarkus-run.jar"), "jar");
        Files.writeString(application.resolve("lib").resolve("app.jar"), "classes");
    }

    @Test
    void aServiceWithoutACacheTrainsOneWhenItStopsAndTheNextStartOpensIt() throws Exception {
        assumeTrue(Runtime.version().feature() >= 25, "AOT caches need a JDK 25 or newer");
        AotCaches aot = new AotCaches(caches, Runtime.version().feature());

        List<String> training = aot.jvmOptions("order-service", application);
        run(training);
        List<String> trained = aot.jvmOptions("order-service", application);
        String opened = run(with(trained, "-Xlog:aot"));

        assertThat(training).singleElement().asString().startsWith("-XX:AOTCacheOutput=");
        Path cache = Path.of(training.getFirst().substring("-XX:AOTCacheOutput=".length()));
        assertThat(cache).isRegularFile().hasParent(caches.toAbsolutePath());
        assertThat(trained).containsExactly("-XX:AOTCache=" + cache);
        assertThat(opened).contains("Opened AOT cache " + cache);
    }

    @Test
    void aRebuiltApplicationTrainsANewCacheTheOldOneIsDeletedAndAnotherInstancesIsKept() throws Exception {
        assumeTrue(Runtime.version().feature() >= 25, "AOT caches need a JDK 25 or newer");
        AotCaches aot = new AotCaches(caches, Runtime.version().feature());
        run(aot.jvmOptions("outbox-relay", application));
        run(aot.jvmOptions("inventory-outbox-relay", application));
        List<Path> before = list(caches);

        Files.setLastModifiedTime(
                application.resolve("lib").resolve("app.jar"),
                FileTime.from(Instant.now().plusSeconds(60)));
        List<String> rebuilt = aot.jvmOptions("outbox-relay", application);

        assertThat(before).hasSize(2);
        assertThat(rebuilt).singleElement().asString().startsWith("-XX:AOTCacheOutput=");
        assertThat(list(caches))
                .singleElement()
                .satisfies(kept -> assertThat(kept.getFileName().toString()).startsWith("inventory-outbox-relay-"));
    }

    @Test
    void aJdkOlderThan25GetsNoOptions() {
        assertThat(new AotCaches(caches, 21).jvmOptions("order-service", application))
                .isEmpty();
    }

    private static List<String> with(List<String> options, String more) {
        List<String> all = new ArrayList<>(options);
        all.add(more);
        return all;
    }

    private static List<Path> list(Path directory) throws IOException {
        try (var files = Files.list(directory)) {
            return files.toList();
        }
    }

    /** {@code java OPTIONS -version} on this JDK, to its end; what it printed. */
    private static String run(List<String> options) throws Exception {
        List<String> command = new ArrayList<>();
        command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        command.addAll(options);
        command.add("-version");
        Process java = new ProcessBuilder(command).redirectErrorStream(true).start();
        String output = new String(java.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertThat(java.waitFor(60, TimeUnit.SECONDS)).isTrue();
        assertThat(java.exitValue()).as(output).isZero();
        return output;
    }
}
