package io.orderflow.broker.server;

import static io.orderflow.broker.server.SecureListenersTest.client;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.catchThrowable;

import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.admin.ScramCredentialInfo;
import org.apache.kafka.clients.admin.ScramMechanism;
import org.apache.kafka.clients.admin.UserScramCredentialUpsertion;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.acl.AccessControlEntry;
import org.apache.kafka.common.acl.AccessControlEntryFilter;
import org.apache.kafka.common.acl.AclBinding;
import org.apache.kafka.common.acl.AclBindingFilter;
import org.apache.kafka.common.acl.AclOperation;
import org.apache.kafka.common.acl.AclPermissionType;
import org.apache.kafka.common.config.SslConfigs;
import org.apache.kafka.common.errors.ClusterAuthorizationException;
import org.apache.kafka.common.errors.GroupAuthorizationException;
import org.apache.kafka.common.errors.TopicAuthorizationException;
import org.apache.kafka.common.resource.PatternType;
import org.apache.kafka.common.resource.ResourcePattern;
import org.apache.kafka.common.resource.ResourcePatternFilter;
import org.apache.kafka.common.resource.ResourceType;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * ACLs from kafka-clients' side: a broker with the authorizer on, {@code User:admin} its super user, and
 * {@code User:alice} (SCRAM) and the client certificate's subject (SSL) with only the ACLs each test grants.
 * Denied requests get the protocol's authorisation errors and no data.
 */
class AuthorizationTest {
    @TempDir
    static Path dataDir;

    static TestBroker broker;

    @BeforeAll
    static void start() throws Exception {
        Map<String, String> settings = new HashMap<>(SecureListenersTest.secureSettings(
                TestCertificates.get(),
                Map.of(
                        "authorizer.class.name", SecurityConfig.STANDARD_AUTHORIZER,
                        "super.users", "User:admin",
                        "group.initial.rebalance.delay.ms", "0")));
        broker = TestBroker.start(dataDir, settings);
        try (Admin admin = admin()) {
            admin.alterUserScramCredentials(List.of(new UserScramCredentialUpsertion(
                            "alice", new ScramCredentialInfo(ScramMechanism.SCRAM_SHA_512, 4096), "alice-pw")))
                    .all()
                    .get(15, TimeUnit.SECONDS);
            admin.createTopics(List.of(
                            new NewTopic("granted", 1, (short) 1),
                            new NewTopic("secret", 1, (short) 1),
                            new NewTopic("orders-a", 1, (short) 1),
                            new NewTopic("orders-secret", 1, (short) 1)))
                    .all()
                    .get(15, TimeUnit.SECONDS);
            admin.createAcls(List.of(
                            allow("User:alice", ResourceType.TOPIC, "granted", PatternType.LITERAL, AclOperation.WRITE),
                            allow("User:alice", ResourceType.TOPIC, "granted", PatternType.LITERAL, AclOperation.READ),
                            allow("User:alice", ResourceType.GROUP, "alice-", PatternType.PREFIXED, AclOperation.READ),
                            allow("User:alice", ResourceType.TOPIC, "orders-", PatternType.PREFIXED, AclOperation.READ),
                            new AclBinding(
                                    new ResourcePattern(ResourceType.TOPIC, "orders-secret", PatternType.LITERAL),
                                    new AccessControlEntry(
                                            "User:alice", "*", AclOperation.READ, AclPermissionType.DENY)),
                            allow(
                                    "User:" + TestCertificates.CLIENT_DN,
                                    ResourceType.TOPIC,
                                    "orders-a",
                                    PatternType.LITERAL,
                                    AclOperation.DESCRIBE)))
                    .all()
                    .get(15, TimeUnit.SECONDS);
        }
        try (KafkaProducer<String, String> producer = producer(SecureListenersTest.admin(broker))) {
            for (String topic : List.of("secret", "orders-a", "orders-secret")) {
                producer.send(new ProducerRecord<>(topic, "k", "v-" + topic)).get(15, TimeUnit.SECONDS);
            }
        }
    }

    @AfterAll
    static void stop() {
        broker.close();
    }

    static Admin admin() {
        return Admin.create(SecureListenersTest.admin(broker));
    }

    static Map<String, Object> alice() {
        return client(broker, "SASL_SSL", "SCRAM-SHA-512", "alice", "alice-pw");
    }

    static AclBinding allow(String principal, ResourceType type, String name, PatternType pattern, AclOperation op) {
        return new AclBinding(
                new ResourcePattern(type, name, pattern),
                new AccessControlEntry(principal, "*", op, AclPermissionType.ALLOW));
    }

    static KafkaProducer<String, String> producer(Map<String, Object> settings) {
        Map<String, Object> p = new HashMap<>();
        p.put(ProducerConfig.ACKS_CONFIG, "all");
        p.put(ProducerConfig.MAX_BLOCK_MS_CONFIG, 10_000);
        p.put(ProducerConfig.DELIVERY_TIMEOUT_MS_CONFIG, 15_000);
        p.put(ProducerConfig.REQUEST_TIMEOUT_MS_CONFIG, 10_000);
        p.putAll(settings);
        return new KafkaProducer<>(p, new StringSerializer(), new StringSerializer());
    }

    static KafkaConsumer<String, String> consumer(Map<String, Object> settings, String group) {
        Map<String, Object> c = new HashMap<>(settings);
        c.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
        c.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, "false");
        if (group != null) {
            c.put(ConsumerConfig.GROUP_ID_CONFIG, group);
        }
        return new KafkaConsumer<>(c, new StringDeserializer(), new StringDeserializer());
    }

    @Test
    void aPrincipalProducesOnlyWhereItMayWrite() throws Exception {
        try (KafkaProducer<String, String> producer = producer(alice())) {
            assertThat(producer.send(new ProducerRecord<>("granted", "k", "v"))
                            .get(15, TimeUnit.SECONDS)
                            .offset())
                    .isNotNegative();
            assertThat(catchThrowable(() -> producer.send(new ProducerRecord<>("secret", "k", "forged"))
                            .get(15, TimeUnit.SECONDS)))
                    .hasCauseInstanceOf(TopicAuthorizationException.class);
        }
        assertThat(LogContents.values(broker.broker(), "secret", 0)).containsExactly("v-secret");
    }

    @Test
    void aTransactionalProducerNeedsWriteOnItsTransactionalId() throws Exception {
        Map<String, Object> settings = new HashMap<>(alice());
        settings.put(ProducerConfig.TRANSACTIONAL_ID_CONFIG, "alice-tx");
        try (KafkaProducer<String, String> producer = producer(settings)) {
            assertThatThrownBy(producer::initTransactions)
                    .isInstanceOf(org.apache.kafka.common.errors.TransactionalIdAuthorizationException.class);
        }
        try (Admin admin = admin()) {
            admin.createAcls(List.of(allow(
                            "User:alice",
                            ResourceType.TRANSACTIONAL_ID,
                            "alice-tx",
                            PatternType.LITERAL,
                            AclOperation.WRITE)))
                    .all()
                    .get(15, TimeUnit.SECONDS);
        }
        try (KafkaProducer<String, String> producer = producer(settings)) {
            producer.initTransactions();
            producer.beginTransaction();
            producer.send(new ProducerRecord<>("granted", "k", "in-alice-tx"));
            producer.commitTransaction();
        }
    }

    @Test
    void aPrincipalReadsOnlyWhatItMayReadAndDenyWinsOverAPrefixAllow() {
        try (KafkaConsumer<String, String> consumer = consumer(alice(), null)) {
            consumer.assign(List.of(new TopicPartition("orders-a", 0)));
            List<String> values = new java.util.ArrayList<>();
            org.awaitility.Awaitility.await().atMost(Duration.ofSeconds(20)).until(() -> {
                consumer.poll(Duration.ofMillis(200)).forEach(r -> values.add(r.value()));
                return !values.isEmpty();
            });
            assertThat(values).containsExactly("v-orders-a");
        }
        for (String topic : List.of("secret", "orders-secret")) {
            try (KafkaConsumer<String, String> consumer = consumer(alice(), null)) {
                consumer.assign(List.of(new TopicPartition(topic, 0)));
                assertThatThrownBy(() -> {
                            for (int i = 0; i < 50; i++) {
                                assertThat(consumer.poll(Duration.ofMillis(200)))
                                        .as(topic)
                                        .isEmpty();
                            }
                        })
                        .as(topic)
                        .isInstanceOf(TopicAuthorizationException.class);
            }
        }
    }

    @Test
    void metadataListsOnlyTheTopicsAPrincipalMayDescribe() throws Exception {
        try (Admin alice = Admin.create(alice())) {
            assertThat(alice.listTopics().names().get(15, TimeUnit.SECONDS))
                    .containsExactlyInAnyOrder("granted", "orders-a", "orders-secret");
        }
    }

    @Test
    void aClientCertificatesSubjectIsThePrincipalOnTheSslListener() throws Exception {
        Map<String, Object> settings = client(broker, "SSL", null, null, null);
        TestCertificates tls = TestCertificates.get();
        settings.put(
                SslConfigs.SSL_KEYSTORE_LOCATION_CONFIG, tls.clientKeystore().toString());
        settings.put(SslConfigs.SSL_KEYSTORE_PASSWORD_CONFIG, tls.password());
        settings.put(SslConfigs.SSL_KEY_PASSWORD_CONFIG, tls.password());
        try (Admin byCertificate = Admin.create(settings)) {
            assertThat(byCertificate.listTopics().names().get(15, TimeUnit.SECONDS))
                    .containsExactly("orders-a");
        }
        try (Admin anonymous = Admin.create(client(broker, "SSL", null, null, null))) {
            assertThat(anonymous.listTopics().names().get(15, TimeUnit.SECONDS)).isEmpty();
        }
    }

    @Test
    void joiningAGroupItMayNotReadIsRefused() {
        try (KafkaConsumer<String, String> consumer = consumer(alice(), "someone-elses-group")) {
            consumer.subscribe(List.of("granted"));
            assertThatThrownBy(() -> {
                        for (int i = 0; i < 50; i++) {
                            consumer.poll(Duration.ofMillis(200));
                        }
                    })
                    .isInstanceOf(GroupAuthorizationException.class);
        }
        try (KafkaConsumer<String, String> consumer = consumer(alice(), "alice-readers")) {
            consumer.subscribe(List.of("granted"));
            org.awaitility.Awaitility.await().atMost(Duration.ofSeconds(30)).until(() -> {
                consumer.poll(Duration.ofMillis(200));
                return !consumer.assignment().isEmpty();
            });
            consumer.commitSync(Duration.ofSeconds(15));
        }
    }

    @Test
    void deletingATopicOrChangingAclsItMayNotIsRefused() throws Exception {
        try (Admin alice = Admin.create(alice())) {
            assertThatThrownBy(
                            () -> alice.deleteTopics(List.of("granted")).all().get(15, TimeUnit.SECONDS))
                    .hasCauseInstanceOf(TopicAuthorizationException.class);
            assertThatThrownBy(() -> alice.createAcls(List.of(allow(
                                    "User:alice", ResourceType.TOPIC, "secret", PatternType.LITERAL, AclOperation.ALL)))
                            .all()
                            .get(15, TimeUnit.SECONDS))
                    .hasCauseInstanceOf(ClusterAuthorizationException.class);
            assertThatThrownBy(() -> alice.createTopics(List.of(new NewTopic("alice-made", 1, (short) 1)))
                            .all()
                            .get(15, TimeUnit.SECONDS))
                    .hasCauseInstanceOf(TopicAuthorizationException.class);
        }
        try (Admin admin = admin()) {
            assertThat(admin.listTopics().names().get(15, TimeUnit.SECONDS))
                    .contains("granted")
                    .doesNotContain("alice-made");
        }
    }

    @Test
    void aclsAreListedAndRemovedThroughTheAdminApiAndSurviveARestart() throws Exception {
        AclBinding temporary = allow("User:bob", ResourceType.TOPIC, "bobs-", PatternType.PREFIXED, AclOperation.WRITE);
        try (Admin admin = admin()) {
            admin.createAcls(List.of(temporary)).all().get(15, TimeUnit.SECONDS);
        }
        broker.restart();
        AclBindingFilter bobs = new AclBindingFilter(
                new ResourcePatternFilter(ResourceType.ANY, null, PatternType.ANY),
                new AccessControlEntryFilter("User:bob", null, AclOperation.ANY, AclPermissionType.ANY));
        try (Admin admin = admin()) {
            assertThat(admin.describeAcls(bobs).values().get(15, TimeUnit.SECONDS))
                    .containsExactly(temporary);
            assertThat(admin.deleteAcls(List.of(bobs)).all().get(15, TimeUnit.SECONDS))
                    .containsExactly(temporary);
            assertThat(admin.describeAcls(bobs).values().get(15, TimeUnit.SECONDS))
                    .isEmpty();
            assertThat(admin.describeAcls(AclBindingFilter.ANY).values().get(15, TimeUnit.SECONDS))
                    .extracting(b -> b.entry().principal())
                    .containsOnly("User:alice", "User:" + TestCertificates.CLIENT_DN);
        }
    }
}
