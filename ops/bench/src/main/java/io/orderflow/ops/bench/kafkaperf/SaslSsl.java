package io.orderflow.ops.bench.kafkaperf;

import io.orderflow.process.ApacheKafkaLauncher;
import io.orderflow.process.LocalCertificates;
import io.orderflow.process.OrderflowBrokerLauncher;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.SecureRandom;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;

/**
 * {@code --security sasl_ssl}: both brokers' client listener SASL_SSL with the same TLS settings (the key store and
 * CA of a {@link LocalCertificates} directory under the work directory, made on the first such run and kept) and
 * the same SCRAM-SHA-512 user {@value #USER}, whose password is random for each benchmark; every tool connects with
 * the same client properties file, {@link #clientConfig()}. That file and the passwords stay in the certificates'
 * owner-only directory: nothing the benchmark prints or logs names a password.
 */
final class SaslSsl {
    static final String USER = "perf";
    static final String MECHANISM = ApacheKafkaLauncher.SASL_MECHANISM;

    private final LocalCertificates certificates;
    private final String password;
    private final Path clientConfig;

    private SaslSsl(LocalCertificates certificates, String password, Path clientConfig) {
        this.certificates = certificates;
        this.password = password;
        this.clientConfig = clientConfig;
    }

    /** The certificates in {@code workDir/tls} (made now if missing), a new password and the client properties. */
    static SaslSsl create(Path workDir) throws IOException {
        LocalCertificates certificates =
                LocalCertificates.open(workDir.toAbsolutePath().normalize().resolve("tls"), List.of());
        byte[] random = new byte[18];
        new SecureRandom().nextBytes(random);
        String password = Base64.getUrlEncoder().withoutPadding().encodeToString(random);
        Path clientConfig = certificates.dir().resolve("perf-client.properties");
        writeOwnerOnly(clientConfig, clientProperties(certificates, password));
        return new SaslSsl(certificates, password, clientConfig);
    }

    /** What every tool connects with, whichever broker it talks to. */
    static List<String> clientProperties(LocalCertificates certificates, String password) {
        return List.of(
                "security.protocol=SASL_SSL",
                "sasl.mechanism=" + MECHANISM,
                "sasl.jaas.config=org.apache.kafka.common.security.scram.ScramLoginModule required username=\"" + USER
                        + "\" password=\"" + password + "\";",
                "ssl.truststore.location=" + certificates.truststore(),
                "ssl.truststore.password=" + certificates.password());
    }

    /** Our broker's settings for its SASL_SSL listener: the TLS stores and the user, created at start-up. */
    List<String> ourListenerSettings() {
        List<String> settings = new ArrayList<>(certificates.brokerSettings());
        settings.add("scram.bootstrap.credentials=" + MECHANISM + "=[name=" + USER + ",password=" + password + "]");
        return settings;
    }

    ApacheKafkaLauncher kafka(ApacheKafkaLauncher plaintext) {
        return plaintext.withSaslSsl(certificates, USER, password);
    }

    OrderflowBrokerLauncher ours(OrderflowBrokerLauncher plaintext) throws IOException {
        return plaintext.withListener(
                new OrderflowBrokerLauncher.Listener("SASL_SSL", ourListenerSettings(), certificates.clientSockets()));
    }

    /** The client properties file every tool is given ({@code --command-config}); owner-only, it holds the password. */
    Path clientConfig() {
        return clientConfig;
    }

    /** For the report's header: what both brokers and the tools run with, without a password. */
    String describe() {
        return "sasl_ssl: both brokers listen with SASL_SSL, TLS with the local CA's broker certificate ("
                + certificates.dir() + "), " + MECHANISM + " login as " + USER + "; every tool connects with "
                + clientConfig.getFileName() + " there";
    }

    /** {@code lines} into {@code file}, readable by its owner only from the start (on a POSIX file system). */
    static void writeOwnerOnly(Path file, List<String> lines) throws IOException {
        Files.deleteIfExists(file);
        try {
            Files.createFile(file, PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rw-------")));
        } catch (UnsupportedOperationException e) {
            Files.createFile(file); // not a POSIX file system: the directory's own ACLs apply
        }
        Files.write(file, lines);
    }

    @Override
    public String toString() {
        return describe();
    }
}
