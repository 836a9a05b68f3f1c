package io.orderflow.foreignclients;

import java.nio.file.Path;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/** Each older Java client release the module's pom names, in a JVM of its own. */
class JavaClientTest {
    @TempDir
    Path dir;

    static Iterable<String> versions() {
        return JavaClient.versions();
    }

    @ParameterizedTest(name = "kafka-clients {0}")
    @MethodSource("versions")
    void producesConsumesInAGroupOfTwoCommitsAndReplays(String version) throws Exception {
        new ClientScenario(new JavaClient(version), dir).run();
    }
}
