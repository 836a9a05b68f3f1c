package io.orderflow.foreignclients;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * KafkaJS against a SASL_SSL listener, logging in with SCRAM-SHA-512 and trusting the local CA: the scenario, and a
 * wrong password refused.
 */
class KafkaJsSaslSslTest {
    @TempDir
    Path dir;

    @Test
    void producesConsumesInAGroupOfTwoCommitsAndReplays() throws Exception {
        new ClientScenario(KafkaJs.installed(), dir).overSaslSsl().run();
    }

    @Test
    void refusesAWrongPasswordAndProducesNothing() throws Exception {
        KafkaJs kafkaJs = KafkaJs.installed();
        try (PackagedBroker broker = PackagedBroker.startSaslSsl(dir.resolve("broker"))) {
            ClientProcess refused = kafkaJs.tryToProduce(
                            broker.connection().withPassword("not-the-password"),
                            "refused",
                            ClientScenario.lines(0, 20),
                            dir)
                    .awaitFailure(Duration.ofSeconds(60));

            assertThat(refused.stderrLines())
                    .as(refused::transcript)
                    .anyMatch(l -> l.startsWith("KafkaJSSASLAuthenticationError"));
            assertThat(kafkaJs.topics(broker.connection(), dir))
                    .as("the topics after the refused producer\n%s", broker.log())
                    .doesNotContain("refused");
        }
    }
}
