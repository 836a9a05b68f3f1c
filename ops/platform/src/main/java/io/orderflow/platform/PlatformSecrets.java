package io.orderflow.platform;

import io.orderflow.kafka.KafkaClientSettings;
import io.orderflow.process.DurableFiles;
import io.orderflow.process.LocalCertificates;
import io.orderflow.process.OrderflowBrokerLauncher;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.SecureRandom;
import java.util.ArrayList;
import java.util.Base64;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The laptop platform's secrets, made on its first start under {@code .orderflow/secrets} (beside the broker's and
 * PostgreSQL's directories) and read on every later one; every file and folder readable by its owner only, and the
 * folder git-ignored with the rest of {@code .orderflow}:
 *
 * <ul>
 *   <li>{@code tls/}: a local CA and the broker's certificate for {@code localhost} ({@link LocalCertificates}), and
 *       the trust store every client checks the broker with;
 *   <li>{@code users/PRINCIPAL}: each principal's SCRAM-SHA-512 password, random ({@link PlatformPrincipals} lists
 *       them and what each may do);
 *   <li>{@code clients/PRINCIPAL.properties}: that principal's Kafka client properties ({@code security.protocol},
 *       {@code sasl.*}, {@code ssl.truststore.*}), the file the Kafka CLI tools and the ops commands take with {@code
 *       --command-config};
 *   <li>{@code services/INSTANCE.properties}: a service's {@code kafka.*} settings and the admin endpoints' token, read
 *       by the service as an extra configuration file ({@code quarkus.config.locations}), so that no secret is on a
 *       command line where {@code ps} would show it;
 *   <li>{@code admin-token}: the bearer token of the services' admin endpoints.
 * </ul>
 *
 * <p><b>Rotation.</b> Delete a file and start the platform again: a missing password or token is made anew, and the
 * launcher sets every principal's password on the broker at each start, so the new one takes effect without losing
 * data (the administrator's own password is the exception: it is created only when the broker has none, as {@code
 * kafka-storage format --add-scram} does; change it with {@code kafka-configs} and then its file). Deleting {@code
 * tls/} makes a new CA and certificate, which the broker and every client pick up at that start.
 *
 * <p>Immutable once opened; thread-safe.
 */
final class PlatformSecrets {

    static final String MECHANISM = "SCRAM-SHA-512";
    private static final String LOGIN_MODULE = "org.apache.kafka.common.security.scram.ScramLoginModule";

    private final Path dir;
    private final LocalCertificates certificates;
    private final Map<String, String> passwords;
    private final String adminToken;

    private PlatformSecrets(
            Path dir, LocalCertificates certificates, Map<String, String> passwords, String adminToken) {
        this.dir = dir;
        this.certificates = certificates;
        this.passwords = passwords;
        this.adminToken = adminToken;
    }

    /** The secrets in {@code dir}, each made now if missing, the broker's certificate for {@code localhost}. */
    static PlatformSecrets open(Path dir) throws IOException {
        return open(dir, List.of());
    }

    /**
     * The secrets in {@code dir}, each made now if missing; the broker's certificate names {@code brokerNames} too
     * (e.g. its compose service name).
     */
    static PlatformSecrets open(Path dir, List<String> brokerNames) throws IOException {
        Path absolute = dir.toAbsolutePath().normalize();
        ownerOnlyDirectory(absolute);
        LocalCertificates certificates = LocalCertificates.open(absolute.resolve("tls"), brokerNames);
        Path users = absolute.resolve("users");
        ownerOnlyDirectory(users);
        Map<String, String> passwords = new LinkedHashMap<>();
        for (String principal : PlatformPrincipals.ALL) {
            passwords.put(principal, secret(users.resolve(principal)));
        }
        PlatformSecrets secrets =
                new PlatformSecrets(absolute, certificates, passwords, secret(absolute.resolve("admin-token")));
        Path clients = absolute.resolve("clients");
        ownerOnlyDirectory(clients);
        for (String principal : PlatformPrincipals.ALL) {
            writeOwnerOnly(
                    clients.resolve(principal + ".properties"), properties("", secrets.clientSecurity(principal)));
        }
        ownerOnlyDirectory(absolute.resolve("services"));
        return secrets;
    }

    /**
     * The admin endpoints' token in {@code dir} (made now if missing), and nothing else: the secrets of a platform whose
     * broker is PLAINTEXT or an Apache Kafka cluster, where no certificate or password of ours is used (and making a
     * CA would cost a first start seconds of keytool).
     */
    static PlatformSecrets tokenOnly(Path dir) throws IOException {
        Path absolute = dir.toAbsolutePath().normalize();
        ownerOnlyDirectory(absolute);
        ownerOnlyDirectory(absolute.resolve("services"));
        return new PlatformSecrets(absolute, null, Map.of(), secret(absolute.resolve("admin-token")));
    }

    /** The secrets folder of a platform whose PostgreSQL directory is {@code postgresDirectory}. */
    static Path beside(Path postgresDirectory) {
        return postgresDirectory.toAbsolutePath().normalize().resolveSibling("secrets");
    }

    /**
     * The broker's SASL_SSL listener: its certificate, SCRAM and PLAIN logins, the administrator's credential if the
     * broker has none, the ACL authorizer with nothing allowed that no ACL allows, and the administrator a super user.
     */
    OrderflowBrokerLauncher.Listener brokerListener() throws IOException {
        requireTls();
        List<String> settings = new ArrayList<>(certificates.brokerSettings());
        settings.add("sasl.enabled.mechanisms=SCRAM-SHA-512,SCRAM-SHA-256,PLAIN");
        settings.add("scram.bootstrap.credentials=" + MECHANISM + "=[name=" + PlatformPrincipals.ADMIN + ",password="
                + passwords.get(PlatformPrincipals.ADMIN) + "]");
        settings.add("authorizer.class.name=org.apache.kafka.metadata.authorizer.StandardAuthorizer");
        settings.add("super.users=User:" + PlatformPrincipals.ADMIN);
        settings.add("allow.everyone.if.no.acl.found=false");
        return new OrderflowBrokerLauncher.Listener("SASL_SSL", settings, certificates.clientSockets());
    }

    /** {@code principal}'s client security settings: SASL_SSL, SCRAM-SHA-512, the local CA's trust store. */
    Map<String, String> clientSecurity(String principal) {
        requireTls();
        Map<String, String> settings = new LinkedHashMap<>();
        settings.put("security.protocol", "SASL_SSL");
        settings.put("sasl.mechanism", MECHANISM);
        settings.put(
                "sasl.jaas.config",
                LOGIN_MODULE + " required username=\"" + principal + "\" password=\"" + password(principal) + "\";");
        settings.put("ssl.truststore.location", certificates.truststore().toString());
        settings.put("ssl.truststore.password", certificates.password());
        settings.put("ssl.truststore.type", "PKCS12");
        return settings;
    }

    /** How {@code principal} reaches the broker at {@code bootstrapServers}. */
    KafkaClientSettings client(String principal, String bootstrapServers) {
        KafkaClientSettings settings = KafkaClientSettings.plaintext(bootstrapServers);
        for (Map.Entry<String, String> entry : clientSecurity(principal).entrySet()) {
            settings = settings.with(entry.getKey(), entry.getValue());
        }
        return settings;
    }

    /** The client properties file of {@code principal}, for {@code --command-config}. */
    Path clientProperties(String principal) {
        return dir.resolve("clients").resolve(principal + ".properties");
    }

    /**
     * Writes {@code instance}'s configuration file: {@code kafkaSecurity} (its principal's client security settings,
     * or none on a PLAINTEXT broker) as {@code kafka.*} keys, and the admin token; returns it, for {@code
     * quarkus.config.locations}.
     */
    Path serviceConfiguration(String instance, Map<String, String> kafkaSecurity) throws IOException {
        Map<String, String> settings = new LinkedHashMap<>();
        kafkaSecurity.forEach((key, value) -> settings.put("kafka." + key, value));
        settings.put("orderflow.admin.token", adminToken);
        Path file = dir.resolve("services").resolve(instance + ".properties");
        writeOwnerOnly(file, properties("", settings));
        return file;
    }

    private void requireTls() {
        if (certificates == null) {
            throw new IllegalStateException(
                    "the secrets in " + dir + " were opened for a PLAINTEXT broker (token only)");
        }
    }

    String password(String principal) {
        String password = passwords.get(principal);
        if (password == null) {
            throw new IllegalArgumentException("no principal " + principal + "; there are " + passwords.keySet());
        }
        return password;
    }

    String adminToken() {
        return adminToken;
    }

    Path adminTokenFile() {
        return dir.resolve("admin-token");
    }

    Path directory() {
        return dir;
    }

    /** Every principal but the administrator, with its password: what the launcher sets on the broker at each start. */
    Map<String, String> servicePasswords() {
        Map<String, String> others = new LinkedHashMap<>(passwords);
        others.remove(PlatformPrincipals.ADMIN);
        return others;
    }

    /** The secret in {@code file}, made (random, 144 bits, URL-safe) and written owner-only if missing. */
    private static String secret(Path file) throws IOException {
        if (Files.isRegularFile(file)) {
            String kept = Files.readString(file).trim();
            if (!kept.isEmpty()) {
                return kept;
            }
        }
        byte[] random = new byte[18];
        new SecureRandom().nextBytes(random);
        String made = Base64.getUrlEncoder().withoutPadding().encodeToString(random);
        writeOwnerOnly(file, made + "\n");
        return made;
    }

    /** Java properties text, values escaped as {@link java.util.Properties#load} reads them. */
    static String properties(String prefix, Map<String, String> settings) {
        StringBuilder text = new StringBuilder();
        settings.forEach((key, value) -> text.append(prefix)
                .append(key)
                .append('=')
                .append(value.replace("\\", "\\\\"))
                .append('\n'));
        return text.toString();
    }

    /** Replaces {@code file} durably ({@link DurableFiles}): a secret written once must be there after a power cut. */
    static void writeOwnerOnly(Path file, String text) throws IOException {
        DurableFiles.writeOwnerOnly(file, text.getBytes(java.nio.charset.StandardCharsets.UTF_8));
    }

    private static void ownerOnlyDirectory(Path dir) throws IOException {
        DurableFiles.createDirectories(dir);
        setPermissions(dir, "rwx------");
        DurableFiles.fsync(dir.toAbsolutePath().getParent());
    }

    private static void setPermissions(Path path, String permissions) throws IOException {
        try {
            Files.setPosixFilePermissions(path, PosixFilePermissions.fromString(permissions));
        } catch (UnsupportedOperationException e) {
            // not a POSIX file system: the folder's own permissions apply
        }
    }
}
