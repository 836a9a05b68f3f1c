package io.orderflow.foreignclients;

import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class KafkaJsTest {
    @TempDir
    Path dir;

    @Test
    void producesConsumesInAGroupOfTwoCommitsAndReplays() throws Exception {
        new ClientScenario(KafkaJs.installed(), dir).run();
    }
}
