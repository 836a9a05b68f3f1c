package io.orderflow.compatibility;

import static io.orderflow.compatibility.KafkaCli.Tool.ACLS;
import static io.orderflow.compatibility.KafkaCli.Tool.CONFIGS;
import static io.orderflow.compatibility.KafkaCli.Tool.CONSOLE_CONSUMER;
import static io.orderflow.compatibility.KafkaCli.Tool.CONSOLE_PRODUCER;
import static io.orderflow.compatibility.KafkaCli.Tool.TOPICS;
import static org.assertj.core.api.Assertions.assertThat;

import io.orderflow.process.LocalCertificates;
import io.orderflow.process.OrderflowBrokerLauncher;
import java.io.IOException;
import java.io.Reader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.clients.consumer.GroupProtocol;
import org.apache.kafka.common.GroupType;
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Apache Kafka's CLI tools (kafka-tools 4.4.0), unchanged, against our broker on a {@code SASL_SSL} listener with
 * ACLs enforced: every tool logs in with SCRAM-SHA-512 over TLS through the properties file an operator would give it
 * ({@code --command-config}), trusting the broker's certificate through a PKCS12 trust store of the local CA.
 *
 * <p>One broker and one CA for the class (the CA costs seconds of keytool). {@code admin} is the only super user
 * and exists from the start ({@code scram.bootstrap.credentials}); {@code alice} is created by {@code kafka-configs}
 * before the tests and holds only the ACLs a test gives her, so what she may do is exactly what the tools granted.
 * Set-up and the checks of what reached the log use an in-process admin client logged in as {@code admin}; every
 * claim about a tool is read from what the tool printed.
 *
 * <p>The console tools take the client properties as {@code --command-config}, their 4.4.0 spelling:
 * {@code --producer.config} and {@code --consumer.config} still work but print a deprecation warning.
 */
class SecureCliTest {
    private static final String ADMIN_PASSWORD = "admin-secret";
    private static final String ALICE_PASSWORD = "alice-secret";
    private static final String SCRAM_LOGIN = "org.apache.kafka.common.security.scram.ScramLoginModule required";
    private static final String AUTHENTICATION_FAILED = "SaslAuthenticationException: Authentication failed during"
            + " authentication due to invalid credentials with SASL mechanism SCRAM-SHA-512";

    @TempDir
    static Path workDir;

    private static LocalCertificates certificates;
    private static BrokerProcess broker;
    private static Admin admin;
    private static Path adminConfig;
    private static Path aliceConfig;

    @BeforeAll
    static void startBrokerAndCreateAlice() throws IOException {
        certificates = LocalCertificates.open(workDir.resolve("certificates"), List.of());
        List<String> settings = new ArrayList<>(certificates.brokerSettings());
        settings.add("scram.bootstrap.credentials=SCRAM-SHA-512=[name=admin,password=" + ADMIN_PASSWORD + "]");
        settings.add("authorizer.class.name=org.apache.kafka.metadata.authorizer.StandardAuthorizer");
        settings.add("super.users=User:admin");
        broker = BrokerProcess.start(
                workDir, new OrderflowBrokerLauncher.Listener("SASL_SSL", settings, certificates.clientSockets()));

        adminConfig = clientConfig("admin", saslSsl("admin", ADMIN_PASSWORD));
        aliceConfig = clientConfig("alice", saslSsl("alice", ALICE_PASSWORD));
        Map<String, Object> adminClient = new HashMap<>(load(adminConfig));
        adminClient.put(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, broker.bootstrapServers());
        admin = Admin.create(adminClient);

        KafkaCli.Run created = addScramCredential("alice", ALICE_PASSWORD).succeeded();
        assertThat(created.stdout()).contains("Completed updating config for user alice.");
    }

    @AfterAll
    static void stopBroker() {
        if (admin != null) {
            admin.close(Duration.ofSeconds(10));
        }
        if (broker != null) {
            broker.close();
        }
    }

    @Test
    void kafkaConfigsAddsAScramCredentialItsUserLogsInWithAndDeletesIt() throws IOException {
        Path carol = clientConfig("carol", saslSsl("carol", "carol-secret"));

        assertThat(addScramCredential("carol", "carol-secret").succeeded().stdout())
                .contains("Completed updating config for user carol.");
        KafkaCli.Run loggedIn = tool(TOPICS, carol, "--list").succeeded();
        assertThat(loggedIn.stderr()).as(loggedIn::transcript).doesNotContain("Exception");

        KafkaCli.Run deleted = tool(
                        CONFIGS,
                        adminConfig,
                        "--alter",
                        "--delete-config",
                        "SCRAM-SHA-512",
                        "--entity-type",
                        "users",
                        "--entity-name",
                        "carol")
                .succeeded();
        assertThat(deleted.stdout()).contains("Completed updating config for user carol.");

        KafkaCli.Run refused = tool(TOPICS, carol, "--list");
        assertThat(refused.exitCode()).as(refused::transcript).isEqualTo(1);
        assertThat(refused.stdout() + refused.stderr()).as(refused::transcript).contains(AUTHENTICATION_FAILED);
    }

    @Test
    void kafkaConfigsDescribesAUsersScramCredentialWithoutItsSecrets() {
        KafkaCli.Run described = tool(
                        CONFIGS, adminConfig, "--describe", "--entity-type", "users", "--entity-name", "alice")
                .succeeded();

        assertThat(described.stdout())
                .as(described::transcript)
                .contains("SCRAM credential configs for user-principal 'alice' are SCRAM-SHA-512=iterations=8192")
                .doesNotContain(ALICE_PASSWORD);
    }

    @Test
    void kafkaAclsGrantAliceExactlyWhatTheyNameUntilTheyAreRemoved() throws Exception {
        admin.createTopics(List.of(new NewTopic("granted", 1, (short) 1), new NewTopic("denied", 1, (short) 1)))
                .all()
                .get(30, TimeUnit.SECONDS);

        List<KafkaCli.Run> added = KafkaCli.concurrently(
                () -> tool(
                        ACLS,
                        adminConfig,
                        "--add",
                        "--allow-principal",
                        "User:alice",
                        "--operation",
                        "Write",
                        "--operation",
                        "Read",
                        "--topic",
                        "granted"),
                () -> tool(
                        ACLS,
                        adminConfig,
                        "--add",
                        "--allow-principal",
                        "User:alice",
                        "--operation",
                        "Read",
                        "--group",
                        "alice-",
                        "--resource-pattern-type",
                        "prefixed"));
        added.forEach(KafkaCli.Run::succeeded);
        assertThat(added.get(0).stdout())
                .contains("Adding ACLs for resource `ResourcePattern(resourceType=TOPIC, name=granted,"
                        + " patternType=LITERAL)`");
        assertThat(added.get(1).stdout())
                .contains("Adding ACLs for resource `ResourcePattern(resourceType=GROUP, name=alice-,"
                        + " patternType=PREFIXED)`");
        KafkaCli.Run listed = tool(ACLS, adminConfig, "--list").succeeded();
        assertThat(aclListing(listed))
                .as(listed::transcript)
                .isEqualTo(Map.of(
                        "ResourcePattern(resourceType=TOPIC, name=granted, patternType=LITERAL)",
                        Set.of(
                                "(principal=User:alice, host=*, operation=WRITE, permissionType=ALLOW)",
                                "(principal=User:alice, host=*, operation=READ, permissionType=ALLOW)"),
                        "ResourcePattern(resourceType=GROUP, name=alice-, patternType=PREFIXED)",
                        Set.of("(principal=User:alice, host=*, operation=READ, permissionType=ALLOW)")));

        KafkaCli.Run produced = produceAsAlice("granted", "one\ntwo\nthree\n");
        assertThat(produced.stderr()).as(produced::transcript).doesNotContain("Exception");
        assertThat(endOffset("granted")).isEqualTo(3);

        // Independent of each other: run side by side. The group members run once per group protocol: READ on the
        // group is checked at JoinGroup (classic) and at ConsumerGroupHeartbeat (consumer), DESCRIBE at
        // FindCoordinator before either.
        List<KafkaCli.Run> runs = KafkaCli.concurrently(
                () -> consumeAsAlice("alice-readers", GroupProtocol.CLASSIC),
                () -> consumeAsAlice("team-b", GroupProtocol.CLASSIC),
                () -> produceAsAlice("denied", "not allowed\n"),
                () -> tool(TOPICS, aliceConfig, "--delete", "--topic", "granted"),
                () -> consumeAsAlice("alice-streamers", GroupProtocol.CONSUMER),
                () -> consumeAsAlice("team-c", GroupProtocol.CONSUMER));

        for (KafkaCli.Run consumed : List.of(runs.get(0), runs.get(4))) {
            assertThat(consumed.stdoutLines())
                    .as(consumed::transcript)
                    .filteredOn(line -> Set.of("one", "two", "three").contains(line))
                    .containsExactly("one", "two", "three");
            assertThat(consumed.stderr()).as(consumed::transcript).contains("Processed a total of 3 messages");
        }
        assertThat(admin.describeConsumerGroups(List.of("alice-readers", "alice-streamers"))
                        .all()
                        .get(30, TimeUnit.SECONDS))
                .as("the groups alice's console consumers formed")
                .hasEntrySatisfying(
                        "alice-readers", group -> assertThat(group.type()).isEqualTo(GroupType.CLASSIC))
                .hasEntrySatisfying(
                        "alice-streamers", group -> assertThat(group.type()).isEqualTo(GroupType.CONSUMER));

        Map.of("team-b", runs.get(1), "team-c", runs.get(5))
                .forEach((group, groupRefused) -> assertThat(groupRefused.stderr())
                        .as(groupRefused::transcript)
                        .contains("GroupAuthorizationException: Not authorized to access group: " + group)
                        .contains("Processed a total of 0 messages"));

        KafkaCli.Run topicRefused = runs.get(2);
        assertThat(topicRefused.stderr())
                .as(topicRefused::transcript)
                .contains("TopicAuthorizationException: Not authorized to access topics: [denied]");
        assertThat(endOffset("denied")).as("records appended to denied").isZero();

        KafkaCli.Run deleteRefused = runs.get(3);
        assertThat(deleteRefused.exitCode()).as(deleteRefused::transcript).isEqualTo(1);
        assertThat(deleteRefused.stderr()).as(deleteRefused::transcript).contains("TopicAuthorizationException");
        assertThat(admin.listTopics().names().get(30, TimeUnit.SECONDS)).contains("granted");

        tool(
                        ACLS,
                        adminConfig,
                        "--remove",
                        "--force",
                        "--topic",
                        "granted",
                        "--group",
                        "alice-",
                        "--resource-pattern-type",
                        "any")
                .succeeded();
        KafkaCli.Run afterRemoval = tool(ACLS, adminConfig, "--list").succeeded();
        assertThat(aclListing(afterRemoval)).as(afterRemoval::transcript).isEmpty();
    }

    @Test
    void aWrongPasswordAnUntrustedCertificateAndAPlaintextClientDoNotGetThrough() throws IOException {
        Map<String, String> wrongPassword = saslSsl("alice", "not-" + ALICE_PASSWORD);
        Map<String, String> noTrustStore = new LinkedHashMap<>(saslSsl("alice", ALICE_PASSWORD));
        noTrustStore.keySet().removeIf(key -> key.startsWith("ssl.truststore."));
        Map<String, String> plaintext = new LinkedHashMap<>(saslSsl("alice", ALICE_PASSWORD));
        plaintext.remove("security.protocol");
        Path wrongPasswordConfig = clientConfig("alice-wrong-password", wrongPassword);
        Path noTrustStoreConfig = clientConfig("alice-no-truststore", noTrustStore);
        Path plaintextConfig = clientConfig("alice-plaintext", plaintext);

        List<KafkaCli.Run> runs = KafkaCli.concurrently(
                () -> tool(TOPICS, wrongPasswordConfig, "--list"),
                () -> tool(TOPICS, noTrustStoreConfig, "--list"),
                () -> tool(TOPICS, plaintextConfig, "--list"));

        KafkaCli.Run badPassword = runs.get(0);
        assertThat(badPassword.exitCode()).as(badPassword::transcript).isEqualTo(1);
        assertThat(badPassword.stderr()).as(badPassword::transcript).contains(AUTHENTICATION_FAILED);

        KafkaCli.Run untrusted = runs.get(1);
        assertThat(untrusted.exitCode()).as(untrusted::transcript).isEqualTo(1);
        assertThat(untrusted.stderr())
                .as(untrusted::transcript)
                .contains("SslAuthenticationException: SSL handshake failed")
                .contains("PKIX path building failed");

        // The broker answers the plaintext ApiVersions request with a TLS alert (as Apache Kafka does); the 4.4.0
        // client reads the alert's first four bytes as a frame size of 352 MB and its admin thread dies of
        // OutOfMemoryError at the tools' 256 MB heap. What matters here: no answer, nothing listed, the broker
        // saw a plaintext connection on its TLS port.
        KafkaCli.Run plain = runs.get(2);
        assertThat(plain.exitCode()).as(plain::transcript).isEqualTo(1);
        assertThat(plain.stdout()).as(plain::transcript).contains("Error while executing topic command");
        // The JDK's words for a plaintext record: "Unrecognized SSL message, plaintext connection?" (JDK 25).
        assertThat(broker.log()).containsPattern("[Uu]nrecognized SSL message");
    }

    /** {@code kafka-configs --alter --add-config SCRAM-SHA-512=[iterations=8192,password=...]} as admin. */
    private static KafkaCli.Run addScramCredential(String user, String password) {
        return tool(
                CONFIGS,
                adminConfig,
                "--alter",
                "--add-config",
                "SCRAM-SHA-512=[iterations=8192,password=" + password + "]",
                "--entity-type",
                "users",
                "--entity-name",
                user);
    }

    private static KafkaCli.Run produceAsAlice(String topic, String lines) {
        return KafkaCli.run(
                CONSOLE_PRODUCER,
                lines,
                Duration.ofSeconds(60),
                "--bootstrap-server",
                broker.bootstrapServers(),
                "--command-config",
                aliceConfig.toString(),
                "--topic",
                topic);
    }

    /** {@code kafka-console-consumer} as alice in {@code group}, joining it through {@code protocol}. */
    private static KafkaCli.Run consumeAsAlice(String group, GroupProtocol protocol) {
        return KafkaCli.run(
                CONSOLE_CONSUMER,
                "",
                Duration.ofSeconds(60),
                "--bootstrap-server",
                broker.bootstrapServers(),
                "--command-config",
                aliceConfig.toString(),
                "--topic",
                "granted",
                "--group",
                group,
                "--command-property",
                "group.protocol=" + protocol.name().toLowerCase(Locale.ROOT),
                "--from-beginning",
                "--max-messages",
                "3",
                "--timeout-ms",
                "30000");
    }

    /** {@code tool --bootstrap-server B --command-config config args...}. */
    private static KafkaCli.Run tool(KafkaCli.Tool tool, Path config, String... args) {
        List<String> all = new ArrayList<>(List.of("--command-config", config.toString()));
        all.addAll(List.of(args));
        return KafkaCli.runAgainst(broker.bootstrapServers(), tool, all.toArray(String[]::new));
    }

    /** The client settings of a SCRAM-SHA-512 login over TLS that trusts the local CA. */
    private static Map<String, String> saslSsl(String user, String password) {
        Map<String, String> settings = new LinkedHashMap<>();
        settings.put("security.protocol", "SASL_SSL");
        settings.put("sasl.mechanism", "SCRAM-SHA-512");
        settings.put("sasl.jaas.config", SCRAM_LOGIN + " username=\"" + user + "\" password=\"" + password + "\";");
        settings.put("ssl.truststore.location", certificates.truststore().toString());
        settings.put("ssl.truststore.type", "PKCS12");
        settings.put("ssl.truststore.password", certificates.password());
        return settings;
    }

    /** Writes {@code settings} as {@code name.properties}, one {@code key=value} a line, as an operator would. */
    private static Path clientConfig(String name, Map<String, String> settings) throws IOException {
        StringBuilder lines = new StringBuilder();
        settings.forEach(
                (key, value) -> lines.append(key).append('=').append(value).append('\n'));
        return Files.writeString(workDir.resolve(name + ".properties"), lines);
    }

    private static Map<String, Object> load(Path config) throws IOException {
        Properties properties = new Properties();
        try (Reader reader = Files.newBufferedReader(config)) {
            properties.load(reader);
        }
        Map<String, Object> settings = new HashMap<>();
        properties.stringPropertyNames().forEach(key -> settings.put(key, properties.getProperty(key)));
        return settings;
    }

    /**
     * {@code kafka-acls --list} as printed: each {@code Current ACLs for resource `PATTERN`:} block's pattern and its
     * tab-indented entries (the tool prints the resources in no particular order).
     */
    private static Map<String, Set<String>> aclListing(KafkaCli.Run listed) {
        Map<String, Set<String>> listing = new TreeMap<>();
        Set<String> current = null;
        for (String line : listed.stdoutLines()) {
            if (line.startsWith("Current ACLs for resource `")) {
                String pattern = line.substring(line.indexOf('`') + 1, line.lastIndexOf('`'));
                current = listing.computeIfAbsent(pattern, p -> new TreeSet<>());
            } else if (current != null && line.strip().startsWith("(principal=")) {
                current.add(line.strip());
            }
        }
        return listing;
    }

    private static long endOffset(String topic) throws Exception {
        TopicPartition partition = new TopicPartition(topic, 0);
        return admin.listOffsets(Map.of(partition, OffsetSpec.latest()))
                .partitionResult(partition)
                .get(30, TimeUnit.SECONDS)
                .offset();
    }
}
