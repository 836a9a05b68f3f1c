package io.orderflow.broker.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;
import static org.awaitility.Awaitility.await;

import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.admin.ScramCredentialInfo;
import org.apache.kafka.clients.admin.ScramMechanism;
import org.apache.kafka.clients.admin.UserScramCredentialDeletion;
import org.apache.kafka.clients.admin.UserScramCredentialUpsertion;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * KIP-368 with kafka-clients: with {@code connections.max.reauth.ms} set, a producer logs in again on its open
 * connections and keeps working, and a user deleted while connected is cut off at its next login.
 */
class ReauthenticationTest {
    @TempDir
    static Path dataDir;

    static TestBroker broker;

    @BeforeAll
    static void start() throws Exception {
        broker = TestBroker.start(
                dataDir,
                SecureListenersTest.secureSettings(
                        TestCertificates.get(), Map.of("connections.max.reauth.ms", "1500")));
        try (Admin admin = Admin.create(SecureListenersTest.admin(broker))) {
            admin.createTopics(List.of(new NewTopic("reauth", 1, (short) 1)))
                    .all()
                    .get(15, TimeUnit.SECONDS);
            admin.alterUserScramCredentials(List.of(new UserScramCredentialUpsertion(
                            "erin", new ScramCredentialInfo(ScramMechanism.SCRAM_SHA_512, 4096), "erin-pw")))
                    .all()
                    .get(15, TimeUnit.SECONDS);
        }
    }

    @AfterAll
    static void stop() {
        broker.close();
    }

    @Test
    void aProducerLogsInAgainOnItsConnectionsAndKeepsSending() throws Exception {
        long before = broker.broker().logins().successes().getOrDefault("SCRAM-SHA-512", 0L);
        try (KafkaProducer<String, String> producer = AuthorizationTest.producer(SecureListenersTest.admin(broker))) {
            producer.send(new ProducerRecord<>("reauth", "k", "first")).get(15, TimeUnit.SECONDS);
            long connected = broker.broker().logins().successes().get("SCRAM-SHA-512");
            await().atMost(Duration.ofSeconds(30)).until(() -> {
                producer.send(new ProducerRecord<>("reauth", "k", "again")).get(15, TimeUnit.SECONDS);
                return broker.broker().logins().successes().get("SCRAM-SHA-512") >= connected + 3;
            });
            assertThat(producer.send(new ProducerRecord<>("reauth", "k", "last"))
                            .get(15, TimeUnit.SECONDS)
                            .offset())
                    .isPositive();
        }
        assertThat(broker.broker().logins().successes().get("SCRAM-SHA-512")).isGreaterThan(before + 3);
    }

    @Test
    void aUserDeletedWhileConnectedIsCutOffAtItsNextLogin() throws Exception {
        var erin = SecureListenersTest.client(broker, "SASL_SSL", "SCRAM-SHA-512", "erin", "erin-pw");
        // Short timeouts: the last send is expected to fail, and it fails when its delivery timeout ends.
        erin.put(org.apache.kafka.clients.producer.ProducerConfig.REQUEST_TIMEOUT_MS_CONFIG, 2_000);
        erin.put(org.apache.kafka.clients.producer.ProducerConfig.DELIVERY_TIMEOUT_MS_CONFIG, 4_000);
        erin.put(org.apache.kafka.clients.producer.ProducerConfig.LINGER_MS_CONFIG, 0);
        try (KafkaProducer<String, String> producer = AuthorizationTest.producer(erin)) {
            producer.send(new ProducerRecord<>("reauth", "k", "erin")).get(15, TimeUnit.SECONDS);
            try (Admin admin = Admin.create(SecureListenersTest.admin(broker))) {
                admin.alterUserScramCredentials(
                                List.of(new UserScramCredentialDeletion("erin", ScramMechanism.SCRAM_SHA_512)))
                        .all()
                        .get(15, TimeUnit.SECONDS);
            }
            long failuresBefore = broker.broker().logins().failures().getOrDefault("SCRAM-SHA-512", 0L);
            await("erin's next login refused").atMost(Duration.ofSeconds(30)).until(() -> {
                // The client logs in again before a request once its session is over: keep asking.
                producer.send(new ProducerRecord<>("reauth", "k", "erin-probe"));
                return broker.broker().logins().failures().getOrDefault("SCRAM-SHA-512", 0L) > failuresBefore;
            });
            var after = producer.send(new ProducerRecord<>("reauth", "k", "erin-after"));
            assertThat(catchThrowable(() -> after.get(60, TimeUnit.SECONDS))).isInstanceOf(ExecutionException.class);
        }
        assertThat(LogContents.values(broker.broker(), "reauth", 0))
                .contains("erin")
                .doesNotContain("erin-after");
    }
}
