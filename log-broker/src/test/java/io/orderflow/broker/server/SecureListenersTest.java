package io.orderflow.broker.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import java.io.InputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.CommonClientConfigs;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.admin.ScramCredentialInfo;
import org.apache.kafka.clients.admin.ScramMechanism;
import org.apache.kafka.clients.admin.UserScramCredentialDeletion;
import org.apache.kafka.clients.admin.UserScramCredentialUpsertion;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.config.SaslConfigs;
import org.apache.kafka.common.config.SslConfigs;
import org.apache.kafka.common.errors.ResourceNotFoundException;
import org.apache.kafka.common.errors.SaslAuthenticationException;
import org.apache.kafka.common.errors.SslAuthenticationException;
import org.apache.kafka.common.errors.UnacceptableCredentialException;
import org.apache.kafka.common.errors.UnsupportedSaslMechanismException;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The broker's listeners with TLS and SASL, from kafka-clients' side: one broker with a PLAINTEXT, a SASL_SSL, an
 * SSL and a SASL_PLAINTEXT listener, an administrator created from {@code scram.bootstrap.credentials}, and users
 * managed through AlterUserScramCredentials.
 */
class SecureListenersTest {
    static final String ADMIN_PASSWORD = "admin-secret";

    @TempDir
    static Path dataDir;

    static TestCertificates tls;
    static TestBroker broker;

    @BeforeAll
    static void start() {
        tls = TestCertificates.get();
        broker = TestBroker.start(dataDir, secureSettings(tls, Map.of()));
    }

    @AfterAll
    static void stop() {
        broker.close();
    }

    /** Four listeners, a PKCS12 key store, client certificates requested, an administrator. */
    static Map<String, String> secureSettings(TestCertificates tls, Map<String, String> more) {
        Map<String, String> settings = new HashMap<>(Map.of(
                "listeners",
                "PLAINTEXT://127.0.0.1:0,SASL_SSL://127.0.0.1:0,SSL://127.0.0.1:0,SASL_PLAINTEXT://127.0.0.1:0",
                "ssl.keystore.location",
                tls.brokerKeystore().toString(),
                "ssl.keystore.password",
                tls.password(),
                "ssl.truststore.location",
                tls.brokerTruststore().toString(),
                "ssl.truststore.password",
                tls.password(),
                "ssl.client.auth",
                "requested",
                "scram.bootstrap.credentials",
                "SCRAM-SHA-512=[name=admin,password=" + ADMIN_PASSWORD + "];SCRAM-SHA-256=[name=admin,password="
                        + ADMIN_PASSWORD + "]"));
        settings.putAll(more);
        return settings;
    }

    /** Client settings for {@code listener} as {@code user}; a null user for no SASL. */
    static Map<String, Object> client(
            TestBroker broker, String listener, String mechanism, String user, String password) {
        Map<String, Object> c = new HashMap<>();
        c.put(
                CommonClientConfigs.BOOTSTRAP_SERVERS_CONFIG,
                "127.0.0.1:" + broker.broker().port(listener));
        c.put(CommonClientConfigs.SECURITY_PROTOCOL_CONFIG, listener);
        if (listener.contains("SSL")) {
            TestCertificates tls = TestCertificates.get();
            c.put(
                    SslConfigs.SSL_TRUSTSTORE_LOCATION_CONFIG,
                    tls.clientTruststore().toString());
            c.put(SslConfigs.SSL_TRUSTSTORE_PASSWORD_CONFIG, tls.password());
        }
        if (user != null) {
            c.put(SaslConfigs.SASL_MECHANISM, mechanism);
            String module = mechanism.equals("PLAIN")
                    ? "org.apache.kafka.common.security.plain.PlainLoginModule"
                    : "org.apache.kafka.common.security.scram.ScramLoginModule";
            c.put(
                    SaslConfigs.SASL_JAAS_CONFIG,
                    module + " required username=\"" + user + "\" password=\"" + password + "\";");
        }
        c.put(AdminClientConfig.DEFAULT_API_TIMEOUT_MS_CONFIG, 15_000);
        c.put(AdminClientConfig.REQUEST_TIMEOUT_MS_CONFIG, 10_000);
        return c;
    }

    static Map<String, Object> admin(TestBroker broker) {
        return client(broker, "SASL_SSL", "SCRAM-SHA-512", "admin", ADMIN_PASSWORD);
    }

    @Test
    void eachSaslMechanismLogsInOverTlsAndTheClientIsToldItsOwnListenersAddress() throws Exception {
        for (String mechanism : List.of("SCRAM-SHA-512", "SCRAM-SHA-256", "PLAIN")) {
            try (Admin admin = Admin.create(client(broker, "SASL_SSL", mechanism, "admin", ADMIN_PASSWORD))) {
                var nodes = admin.describeCluster().nodes().get(15, TimeUnit.SECONDS);
                assertThat(nodes)
                        .singleElement()
                        .satisfies(n -> assertThat(n.port())
                                .as(mechanism)
                                .isEqualTo(broker.broker().port("SASL_SSL")));
            }
        }
        assertThat(broker.broker().logins().successes()).containsKeys("SCRAM-SHA-512", "SCRAM-SHA-256", "PLAIN");
    }

    @Test
    void recordsTravelOverSaslSslWholeIncludingFetchesLargerThanOneTlsRecord() throws Exception {
        String topic = "tls-round-trip";
        try (Admin admin = Admin.create(admin(broker))) {
            admin.createTopics(List.of(new NewTopic(topic, 1, (short) 1))).all().get(15, TimeUnit.SECONDS);
        }
        String big = "x".repeat(40_000);
        Map<String, Object> producerSettings = admin(broker);
        producerSettings.put(ProducerConfig.ACKS_CONFIG, "all");
        try (KafkaProducer<String, String> producer =
                new KafkaProducer<>(producerSettings, new StringSerializer(), new StringSerializer())) {
            for (int i = 0; i < 50; i++) {
                producer.send(new ProducerRecord<>(topic, "k" + i, i + ":" + big));
            }
            producer.flush();
        }
        Map<String, Object> consumerSettings = admin(broker);
        consumerSettings.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
        List<String> values = new ArrayList<>();
        try (KafkaConsumer<String, String> consumer =
                new KafkaConsumer<>(consumerSettings, new StringDeserializer(), new StringDeserializer())) {
            consumer.assign(List.of(new TopicPartition(topic, 0)));
            await().atMost(Duration.ofSeconds(30)).until(() -> {
                for (ConsumerRecord<String, String> r : consumer.poll(Duration.ofMillis(200))) {
                    values.add(r.value());
                }
                return values.size() >= 50;
            });
        }
        assertThat(values).hasSize(50);
        for (int i = 0; i < 50; i++) {
            assertThat(values.get(i)).isEqualTo(i + ":" + big);
        }
    }

    @Test
    void aWrongPasswordAndAnUnknownUserAreRefusedWithTheSameMessageAndCounted() {
        long before = broker.broker().logins().failures().getOrDefault("SCRAM-SHA-512", 0L);
        String wrongPassword = failure(client(broker, "SASL_SSL", "SCRAM-SHA-512", "admin", "not-the-password"));
        String unknownUser = failure(client(broker, "SASL_SSL", "SCRAM-SHA-512", "nobody", ADMIN_PASSWORD));
        assertThat(wrongPassword).isEqualTo(unknownUser).contains("invalid credentials");
        assertThat(broker.broker().logins().failures().get("SCRAM-SHA-512")).isGreaterThanOrEqualTo(before + 2);
        assertThat(failure(client(broker, "SASL_SSL", "PLAIN", "admin", "not-the-password")))
                .contains("invalid credentials");
    }

    /** The message of the SaslAuthenticationException a describeCluster with these settings fails with. */
    private static String failure(Map<String, Object> settings) {
        try (Admin admin = Admin.create(settings)) {
            var thrown = org.assertj.core.api.Assertions.catchThrowable(
                    () -> admin.describeCluster().nodes().get(15, TimeUnit.SECONDS));
            assertThat(thrown)
                    .isInstanceOf(ExecutionException.class)
                    .hasCauseInstanceOf(SaslAuthenticationException.class);
            return thrown.getCause().getMessage();
        }
    }

    @Test
    void plainIsNotOfferedOnAListenerWithoutTls() throws Exception {
        try (Admin admin = Admin.create(client(broker, "SASL_PLAINTEXT", "PLAIN", "admin", ADMIN_PASSWORD))) {
            assertThatThrownBy(() -> admin.describeCluster().nodes().get(15, TimeUnit.SECONDS))
                    .hasCauseInstanceOf(UnsupportedSaslMechanismException.class);
        }
        try (Admin admin = Admin.create(client(broker, "SASL_PLAINTEXT", "SCRAM-SHA-256", "admin", ADMIN_PASSWORD))) {
            assertThat(admin.describeCluster().clusterId().get(15, TimeUnit.SECONDS))
                    .isNotBlank();
        }
    }

    @Test
    void aClientThatDoesNotTrustTheBrokersCertificateFailsTheHandshake() {
        Map<String, Object> settings = admin(broker);
        settings.remove(SslConfigs.SSL_TRUSTSTORE_LOCATION_CONFIG);
        settings.remove(SslConfigs.SSL_TRUSTSTORE_PASSWORD_CONFIG);
        try (Admin admin = Admin.create(settings)) {
            assertThatThrownBy(() -> admin.describeCluster().nodes().get(15, TimeUnit.SECONDS))
                    .hasCauseInstanceOf(SslAuthenticationException.class);
        }
    }

    @Test
    void aPlaintextRequestOnTheTlsPortGetsNoKafkaAnswerAndTheConnectionCloses() throws Exception {
        try (Socket socket = new Socket()) {
            socket.connect(new InetSocketAddress("127.0.0.1", broker.broker().port("SASL_SSL")), 5_000);
            socket.setSoTimeout(10_000);
            // An ApiVersions v3 request frame, as a plaintext client would send it first.
            ByteBuffer frame = ByteBuffer.allocate(4 + 2 + 2 + 4 + 2 + 1 + 1 + 1 + 1);
            frame.putInt(frame.capacity() - 4)
                    .putShort((short) 18)
                    .putShort((short) 3)
                    .putInt(7);
            frame.putShort((short) -1).put((byte) 0).put((byte) 1).put((byte) 1).put((byte) 0);
            socket.getOutputStream().write(frame.array());
            InputStream in = socket.getInputStream();
            byte[] answer = in.readNBytes(64);
            // At most a TLS alert record (content type 21), never a Kafka response, then end of stream.
            assertThat(answer.length).isLessThan(64);
            if (answer.length > 0) {
                assertThat(answer[0]).isEqualTo((byte) 21);
            }
        }
        try (Admin admin = Admin.create(admin(broker))) {
            assertThat(admin.describeCluster().clusterId().get(15, TimeUnit.SECONDS))
                    .isNotBlank();
        }
    }

    @Test
    void usersAreAddedDescribedAndDeletedThroughTheAdminApiAndLogInAccordingly() throws Exception {
        try (Admin admin = Admin.create(admin(broker))) {
            admin.alterUserScramCredentials(List.of(
                            new UserScramCredentialUpsertion(
                                    "alice", new ScramCredentialInfo(ScramMechanism.SCRAM_SHA_256, 8192), "alice-pw"),
                            new UserScramCredentialUpsertion(
                                    "alice", new ScramCredentialInfo(ScramMechanism.SCRAM_SHA_512, 4096), "alice-pw")))
                    .all()
                    .get(15, TimeUnit.SECONDS);
            var described = admin.describeUserScramCredentials(List.of("alice"))
                    .all()
                    .get(15, TimeUnit.SECONDS)
                    .get("alice")
                    .credentialInfos();
            assertThat(described)
                    .extracting(ScramCredentialInfo::mechanism, ScramCredentialInfo::iterations)
                    .containsExactlyInAnyOrder(
                            org.assertj.core.groups.Tuple.tuple(ScramMechanism.SCRAM_SHA_256, 8192),
                            org.assertj.core.groups.Tuple.tuple(ScramMechanism.SCRAM_SHA_512, 4096));
            try (Admin alice = Admin.create(client(broker, "SASL_SSL", "SCRAM-SHA-256", "alice", "alice-pw"))) {
                assertThat(alice.describeCluster().clusterId().get(15, TimeUnit.SECONDS))
                        .isNotBlank();
            }

            assertThatThrownBy(() -> admin.alterUserScramCredentials(List.of(new UserScramCredentialUpsertion(
                                    "bob", new ScramCredentialInfo(ScramMechanism.SCRAM_SHA_256, 1000), "pw")))
                            .all()
                            .get(15, TimeUnit.SECONDS))
                    .hasCauseInstanceOf(UnacceptableCredentialException.class);
            assertThatThrownBy(() -> admin.alterUserScramCredentials(
                                    List.of(new UserScramCredentialDeletion("bob", ScramMechanism.SCRAM_SHA_256)))
                            .all()
                            .get(15, TimeUnit.SECONDS))
                    .hasCauseInstanceOf(ResourceNotFoundException.class);

            admin.alterUserScramCredentials(List.of(
                            new UserScramCredentialDeletion("alice", ScramMechanism.SCRAM_SHA_256),
                            new UserScramCredentialDeletion("alice", ScramMechanism.SCRAM_SHA_512)))
                    .all()
                    .get(15, TimeUnit.SECONDS);
            assertThat(admin.describeUserScramCredentials().all().get(15, TimeUnit.SECONDS))
                    .containsOnlyKeys("admin");
        }
        assertThat(failure(client(broker, "SASL_SSL", "SCRAM-SHA-256", "alice", "alice-pw")))
                .contains("invalid credentials");
    }

    @Test
    void credentialsSurviveARestartAndAreNeverStoredAsPasswords() throws Exception {
        try (Admin admin = Admin.create(admin(broker))) {
            admin.alterUserScramCredentials(List.of(new UserScramCredentialUpsertion(
                            "carol", new ScramCredentialInfo(ScramMechanism.SCRAM_SHA_512, 4096), "carol-pw")))
                    .all()
                    .get(15, TimeUnit.SECONDS);
        }
        String stored =
                java.nio.file.Files.readString(dataDir.resolve("security").resolve("scram-credentials"));
        assertThat(stored).doesNotContain("carol-pw").doesNotContain(ADMIN_PASSWORD);
        broker.restart();
        try (Admin carol = Admin.create(client(broker, "SASL_SSL", "SCRAM-SHA-512", "carol", "carol-pw"))) {
            assertThat(carol.describeCluster().clusterId().get(15, TimeUnit.SECONDS))
                    .isNotBlank();
        }
    }
}
