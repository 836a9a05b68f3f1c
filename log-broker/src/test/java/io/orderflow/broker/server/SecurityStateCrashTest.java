package io.orderflow.broker.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.io.IOException;
import java.net.ServerSocket;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.CommonClientConfigs;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.ScramCredentialInfo;
import org.apache.kafka.clients.admin.ScramMechanism;
import org.apache.kafka.clients.admin.UserScramCredentialUpsertion;
import org.apache.kafka.common.acl.AclBinding;
import org.apache.kafka.common.acl.AclBindingFilter;
import org.apache.kafka.common.acl.AclOperation;
import org.apache.kafka.common.config.SaslConfigs;
import org.apache.kafka.common.resource.PatternType;
import org.apache.kafka.common.resource.ResourceType;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * What CreateAcls and AlterUserScramCredentials acknowledged is still there after the broker process is killed
 * with SIGKILL right after the answer: {@link BrokerMain} in a JVM of its own, on a SASL_PLAINTEXT listener with
 * the authorizer on.
 */
class SecurityStateCrashTest {
    @TempDir
    Path dataDir;

    private final List<Process> children = new ArrayList<>();

    @AfterEach
    void killLeftovers() {
        children.forEach(Process::destroyForcibly);
    }

    @Test
    void aclsAndCredentialsSurviveKillNine() throws Exception {
        int port = freePort();
        Process first = brokerMain(port);
        AclBinding acl = AuthorizationTest.allow(
                "User:dave", ResourceType.TOPIC, "daves-", PatternType.PREFIXED, AclOperation.WRITE);
        try (Admin admin = Admin.create(settings(port, "admin", "admin-pw"))) {
            await().atMost(Duration.ofSeconds(60))
                    .ignoreExceptions()
                    .until(() -> admin.describeCluster().clusterId().get(5, TimeUnit.SECONDS) != null);
            admin.alterUserScramCredentials(List.of(new UserScramCredentialUpsertion(
                            "dave", new ScramCredentialInfo(ScramMechanism.SCRAM_SHA_256, 4096), "dave-pw")))
                    .all()
                    .get(15, TimeUnit.SECONDS);
            admin.createAcls(List.of(acl)).all().get(15, TimeUnit.SECONDS);
        }
        first.destroyForcibly().waitFor(30, TimeUnit.SECONDS);

        brokerMain(port);
        try (Admin dave = Admin.create(settings(port, "dave", "dave-pw"));
                Admin admin = Admin.create(settings(port, "admin", "admin-pw"))) {
            await().atMost(Duration.ofSeconds(60))
                    .ignoreExceptions()
                    .until(() -> admin.describeCluster().clusterId().get(5, TimeUnit.SECONDS) != null);
            assertThat(admin.describeAcls(AclBindingFilter.ANY).values().get(15, TimeUnit.SECONDS))
                    .containsExactly(acl);
            assertThat(dave.describeCluster().clusterId().get(15, TimeUnit.SECONDS))
                    .isNotBlank();
        }
    }

    private static int freePort() throws IOException {
        try (ServerSocket socket = new ServerSocket(0)) {
            return socket.getLocalPort();
        }
    }

    private static Map<String, Object> settings(int port, String user, String password) {
        Map<String, Object> c = new HashMap<>();
        c.put(CommonClientConfigs.BOOTSTRAP_SERVERS_CONFIG, "127.0.0.1:" + port);
        c.put(CommonClientConfigs.SECURITY_PROTOCOL_CONFIG, "SASL_PLAINTEXT");
        c.put(SaslConfigs.SASL_MECHANISM, "SCRAM-SHA-256");
        c.put(
                SaslConfigs.SASL_JAAS_CONFIG,
                "org.apache.kafka.common.security.scram.ScramLoginModule required username=\"" + user + "\" password=\""
                        + password + "\";");
        return c;
    }

    private Process brokerMain(int port) throws IOException {
        List<String> command = List.of(
                ProcessHandle.current().info().command().orElse("java"),
                "-Xmx128m",
                "-XX:+UseSerialGC",
                "-cp",
                System.getProperty("java.class.path"),
                BrokerMain.class.getName(),
                "--log-format=text",
                "--metrics.port=-1",
                "--log.dirs=" + dataDir,
                "--listeners=SASL_PLAINTEXT://127.0.0.1:" + port,
                "--advertised.host=127.0.0.1",
                "--authorizer.class.name=" + SecurityConfig.STANDARD_AUTHORIZER,
                "--super.users=User:admin",
                "--scram.bootstrap.credentials=SCRAM-SHA-256=[name=admin,password=admin-pw]");
        Process process = new ProcessBuilder(command)
                .redirectErrorStream(true)
                .redirectOutput(
                        dataDir.resolveSibling(dataDir.getFileName() + ".log").toFile())
                .start();
        children.add(process);
        return process;
    }
}
