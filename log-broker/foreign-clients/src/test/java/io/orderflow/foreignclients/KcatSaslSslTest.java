package io.orderflow.foreignclients;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * librdkafka through kcat against a SASL_SSL listener, logging in with SCRAM-SHA-512 and verifying the broker's
 * certificate against the local CA: the scenario, reading a topic to its end, and a wrong password refused.
 */
class KcatSaslSslTest {
    @TempDir
    Path dir;

    @Test
    void producesConsumesInAGroupOfTwoCommitsAndReplays() throws Exception {
        new ClientScenario(Kcat.fromPath(), dir).overSaslSsl().run();
    }

    @Test
    void readsATopicFromTheBeginningToItsEndWithoutAGroup() throws Exception {
        Kcat kcat = Kcat.fromPath();
        try (PackagedBroker broker = PackagedBroker.startSaslSsl(dir.resolve("broker"))) {
            KcatTest.readsToTheEnd(kcat, broker, dir);
        }
    }

    @Test
    void refusesAWrongPasswordAndProducesNothing() throws Exception {
        Kcat kcat = Kcat.fromPath();
        try (PackagedBroker broker = PackagedBroker.startSaslSsl(dir.resolve("broker"))) {
            ClientProcess refused = kcat.tryToProduce(
                            broker.connection().withPassword("not-the-password"),
                            "refused",
                            ClientScenario.lines(0, 20),
                            dir)
                    .awaitFailure(Duration.ofSeconds(60));

            // "SASL authentication error" is how librdkafka reports a SaslAuthenticate answer with an error.
            assertThat(refused.stderrLines())
                    .as(refused::transcript)
                    .anyMatch(l -> l.contains("SASL authentication error"));
            assertThat(kcat.topics(broker.connection(), dir))
                    .as("the topics after the refused producer\n%s", broker.log())
                    .doesNotContain("refused");
        }
    }
}
