package io.orderflow.process;

import java.io.File;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.GeneralSecurityException;
import java.security.KeyStore;
import java.security.SecureRandom;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Base64;
import java.util.List;
import java.util.Locale;
import java.util.Objects;
import java.util.Properties;
import java.util.concurrent.TimeUnit;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLSocketFactory;
import javax.net.ssl.TrustManagerFactory;

/**
 * Apache Kafka ({@link #VERSION}, the build's {@code kafka.version}) from Maven Central, one node in KRaft combined mode (broker and controller in one JVM), set up
 * the way its quickstart does: a generated {@code server.properties}, the storage formatted by
 * {@code kafka.tools.StorageTool format --standalone} with a random cluster id, then {@code kafka.Kafka}, which
 * {@link #start} waits for until it answers an ApiVersions request. The one launcher of Apache Kafka in the build:
 * the benchmarks use it, and so do the compatibility module's tests ({@link #onClasspath}).
 *
 * <p>For the benchmarks ({@link #ApacheKafkaLauncher(Path, List)}) the JVM options are those
 * {@code bin/kafka-server-start.sh} and {@code bin/kafka-run-class.sh} use (1 GiB fixed heap, G1 with 20 ms
 * pauses), minus GC logging and JMX, and topics get six partitions by default, as on our broker there.
 * Durability is Kafka's default: acks=all is answered once the (single) in-sync replica has the records in the page
 * cache; nothing is fsynced before acknowledging. Its classpath is then exactly kafka-anchor's
 * {@code target/kafka-broker}: kafka_2.13 and its dependencies, plus the Log4j SLF4J binding the binary
 * distribution ships.
 *
 * <p>The broker logs at INFO, as with {@code kafka-server-start.sh}: to stdout through the Log4j configuration
 * written next to {@code server.properties} when the classpath's SLF4J binding is Log4j's (as in kafka-anchor's
 * jars), otherwise through whichever binding the classpath holds. Its stdout and stderr go to the log file given
 * to {@link #start}; the storage formatting's output to a {@code -format.log} next to it.
 *
 * <p>Its client listener is PLAINTEXT unless {@link #withSaslSsl} says SASL_SSL: TLS with a {@link LocalCertificates}
 * key store, and one SCRAM-SHA-512 user, written into the metadata when the storage is formatted (as
 * {@code kafka-storage format --add-scram} does) and the one the broker itself logs in as on its inter-broker
 * listener. The controller listener stays PLAINTEXT on loopback, as in Kafka's own single-node examples.
 */
public final class ApacheKafkaLauncher implements BrokerLauncher {
    static final List<String> JVM_OPTIONS = List.of(
            "-Xmx1G",
            "-Xms1G",
            "-server",
            "-XX:+UseG1GC",
            "-XX:MaxGCPauseMillis=20",
            "-XX:InitiatingHeapOccupancyPercent=35",
            "-XX:+ExplicitGCInvokesConcurrent",
            "-XX:MaxInlineLevel=15",
            "-Djava.awt.headless=true");

    /** The Apache Kafka release of the anchor: the build's {@code kafka.version}, the one place it is written. */
    public static final String VERSION = anchorVersion();

    /** How reports name the anchor. */
    public static final String NAME = "Apache Kafka " + VERSION;

    private static final String KAFKA_JAR = "kafka_2.13-" + VERSION + ".jar";

    /** The SASL mechanism of a {@link #withSaslSsl} listener: its clients' and the broker's own inter-broker login. */
    public static final String SASL_MECHANISM = "SCRAM-SHA-512";

    private static final String LOG4J2 = """
            status = warn
            appender.stdout.type = Console
            appender.stdout.name = STDOUT
            appender.stdout.layout.type = PatternLayout
            appender.stdout.layout.pattern = [%d] %p %m (%c)%n
            rootLogger.level = INFO
            rootLogger.appenderRef.stdout.ref = STDOUT
            """;

    private final String classpath;
    private final String source;
    private final List<String> jvmOptions;
    private final int partitions;
    private final List<String> extraSettings;
    private final SaslSsl saslSsl;

    /** The benchmarks' Kafka, at its defaults: {@code lib} holds kafka_2.13 {@link #VERSION} and its runtime dependencies. */
    public ApacheKafkaLauncher(Path lib) {
        this(lib, List.of());
    }

    /**
     * The benchmarks' Kafka: {@code lib} holds kafka_2.13 {@link #VERSION} and its runtime dependencies.
     *
     * @param extraSettings {@code KEY=VALUE} lines appended to the generated {@code server.properties}, e.g.
     *     {@code log.flush.interval.messages=1} to make Kafka fsync before acknowledging, as our broker does
     */
    public ApacheKafkaLauncher(Path lib, List<String> extraSettings) {
        this(
                lib.toAbsolutePath().normalize() + "/*",
                lib.toAbsolutePath().normalize().toString(),
                JVM_OPTIONS,
                BrokerLauncher.DEFAULT_PARTITIONS,
                extraSettings,
                null);
    }

    private ApacheKafkaLauncher(
            String classpath,
            String source,
            List<String> jvmOptions,
            int partitions,
            List<String> extraSettings,
            SaslSsl saslSsl) {
        this.classpath = classpath;
        this.source = source;
        this.jvmOptions = List.copyOf(jvmOptions);
        this.partitions = partitions;
        this.extraSettings = List.copyOf(extraSettings);
        this.saslSsl = saslSsl;
    }

    /**
     * This launcher with Kafka's client listener SASL_SSL instead of PLAINTEXT: TLS with {@code certificates}' broker
     * key store and trust store (the settings {@link LocalCertificates#brokerSettings()} names, as our broker gets
     * them), {@value #SASL_MECHANISM} the only SASL mechanism, and {@code user} with {@code password} the one SCRAM
     * user, added when the storage is formatted. Clients trust {@code certificates}' CA and log in as {@code user};
     * the start-up probe speaks TLS. No password appears in {@link #describe()}; they are in the run directory's
     * {@code server.properties} (owner-only), and the user's is on the storage formatting's command line too.
     *
     * @param user letters, digits, {@code .}, {@code _} and {@code -}
     * @param password not empty, without quotes, backslashes, commas, brackets, {@code =} or white space (they would
     *     break the JAAS and {@code --add-scram} syntax it is written in)
     * @throws IllegalArgumentException for a user or password outside those
     */
    public ApacheKafkaLauncher withSaslSsl(LocalCertificates certificates, String user, String password) {
        return new ApacheKafkaLauncher(
                classpath, source, jvmOptions, partitions, extraSettings, new SaslSsl(certificates, user, password));
    }

    /**
     * This launcher with {@code heapOptions} in place of {@code kafka-server-start.sh}'s {@code -Xmx1G -Xms1G}, as
     * setting {@code KAFKA_HEAP_OPTS} does (e.g. {@code -Xmx128m} to start it with the heap another broker is given),
     * and {@code extraJvmOptions} after the others.
     */
    public ApacheKafkaLauncher withHeap(List<String> heapOptions, List<String> extraJvmOptions) {
        List<String> options = new ArrayList<>(heapOptions);
        jvmOptions.stream()
                .filter(option -> !option.startsWith("-Xmx") && !option.startsWith("-Xms"))
                .forEach(options::add);
        options.addAll(extraJvmOptions);
        return new ApacheKafkaLauncher(classpath, source, options, partitions, extraSettings, saslSsl);
    }

    /**
     * A SASL_SSL client listener's TLS stores and its one SCRAM user. {@link #toString()} leaves the password out.
     */
    record SaslSsl(LocalCertificates certificates, String user, String password) {
        SaslSsl {
            Objects.requireNonNull(certificates, "certificates");
            if (user == null || !user.matches("[A-Za-z0-9._-]+")) {
                throw new IllegalArgumentException(
                        "A SCRAM user name of letters, digits, '.', '_' and '-' only, not '" + user + "'");
            }
            if (password == null || !password.matches("[^\"\\\\,\\[\\]=\\s]+")) {
                throw new IllegalArgumentException("A SCRAM password must not be empty and must hold no quote,"
                        + " backslash, comma, bracket, '=' or white space");
            }
        }

        /** The lines of {@code server.properties} beyond the listeners that make the client listener SASL_SSL. */
        List<String> serverSettings() {
            List<String> settings = new ArrayList<>(List.of(
                    "sasl.enabled.mechanisms=" + SASL_MECHANISM,
                    "sasl.mechanism.inter.broker.protocol=" + SASL_MECHANISM,
                    "listener.name.sasl_ssl." + SASL_MECHANISM.toLowerCase(Locale.ROOT) + ".sasl.jaas.config="
                            + jaasConfig()));
            settings.addAll(certificates.brokerSettings());
            return settings;
        }

        /** The login, as a client's and the broker's {@code sasl.jaas.config}. */
        String jaasConfig() {
            return "org.apache.kafka.common.security.scram.ScramLoginModule required username=\"" + user
                    + "\" password=\"" + password + "\";";
        }

        /** The user for {@code kafka-storage format --add-scram}. */
        String scramCredential() {
            return SASL_MECHANISM + "=[name=" + user + ",password=" + password + "]";
        }

        @Override
        public String toString() {
            return "a SASL_SSL listener (" + SASL_MECHANISM + ", user " + user + ", TLS key store "
                    + certificates.brokerKeystore() + ")";
        }
    }

    /**
     * Kafka from an explicit classpath, e.g. a test JVM's own {@code java.class.path} where kafka_2.13 is a test
     * dependency, with Kafka's settings otherwise at their defaults.
     *
     * @param classpath for {@code java -cp}: kafka_2.13 {@link #VERSION} and its runtime dependencies, among anything else
     * @param jvmOptions the broker JVM's options, in place of {@code kafka-server-start.sh}'s (the storage
     *     formatting runs with none)
     * @param partitions {@code num.partitions}, the partitions of auto-created topics and of CreateTopics without a
     *     count; Kafka's own {@code config/server.properties} has 1
     */
    public static ApacheKafkaLauncher onClasspath(String classpath, List<String> jvmOptions, int partitions) {
        return new ApacheKafkaLauncher(classpath, "classpath " + classpath, jvmOptions, partitions, List.of(), null);
    }

    @Override
    public String name() {
        return NAME;
    }

    @Override
    public String describe() {
        return NAME + " (" + source + "), KRaft combined mode, "
                + (jvmOptions.equals(JVM_OPTIONS) ? "JVM options of kafka-server-start.sh " : "JVM options ")
                + String.join(" ", jvmOptions)
                + (extraSettings.isEmpty()
                        ? ", no fsync before acknowledging (Kafka's default)"
                        : ", NOT at its defaults: " + String.join(" ", extraSettings))
                + (saslSsl == null ? "" : ", " + saslSsl);
    }

    @Override
    public RunningBroker start(Path runDir, Path logFile) throws IOException {
        if (!hasKafkaJar()) {
            throw new IOException("No Apache Kafka jars (" + KAFKA_JAR + ") in " + source
                    + "; resolve kafka-anchor's: ./mvnw -f log-broker/kafka-anchor/pom.xml -P kafka-broker package");
        }
        Files.createDirectories(runDir);
        Path dataDir = runDir.resolve("data").toAbsolutePath();
        List<Integer> ports = ChildProcesses.freeLoopbackPorts(2);
        int port = ports.get(0);
        int controllerPort = ports.get(1);
        Path properties = runDir.resolve("server.properties");
        if (saslSsl != null) {
            ownerOnly(properties); // it holds the passwords
        }
        Files.writeString(
                properties,
                serverProperties(dataDir, port, controllerPort, partitions, saslSsl)
                        + String.join("\n", extraSettings)
                        + "\n");
        Path log4j = runDir.resolve("log4j2.properties");
        Files.writeString(log4j, LOG4J2);

        long t0 = System.nanoTime();
        format(
                properties,
                log4j,
                logFile.resolveSibling(logFile.getFileName().toString().replace(".log", "-format.log")));
        System.out.printf(
                Locale.ROOT, "  storage formatted in %.0f ms (not part of start-up)%n", (System.nanoTime() - t0) / 1e6);
        return launch(
                properties,
                log4j,
                port,
                logFile,
                saslSsl == null ? null : saslSsl.certificates().clientSockets());
    }

    /**
     * Starts Kafka again on what an earlier {@link #start} in {@code runDir} left: the same {@code server.properties},
     * so the same ports and the same log, without formatting. After a {@link RunningBroker#kill} this is Kafka's
     * recovery from a crash: it reads its log back and truncates what was not whole. A SASL_SSL start is probed
     * over TLS again, trusting the trust store its {@code server.properties} names.
     *
     * @throws IOException if {@code runDir} holds no earlier start
     */
    public RunningBroker restart(Path runDir, Path logFile) throws IOException {
        Path properties = runDir.resolve("server.properties");
        Path log4j = runDir.resolve("log4j2.properties");
        if (!Files.isRegularFile(properties) || !Files.isRegularFile(log4j)) {
            throw new IOException("No earlier start of Kafka in " + runDir + " (no server.properties)");
        }
        Properties settings = new Properties();
        try (var reader = Files.newBufferedReader(properties)) {
            settings.load(reader);
        }
        String listener = Arrays.stream(settings.getProperty("listeners", "").split(","))
                .map(String::trim)
                .filter(entry -> entry.startsWith("PLAINTEXT://") || entry.startsWith("SASL_SSL://"))
                .findFirst()
                .orElseThrow(() -> new IOException("No PLAINTEXT or SASL_SSL listener in " + properties));
        int port = Integer.parseInt(listener.substring(listener.lastIndexOf(':') + 1));
        SSLSocketFactory probeTls = listener.startsWith("SASL_SSL://") ? trusting(settings, properties) : null;
        return launch(properties, log4j, port, logFile, probeTls);
    }

    /** A socket factory trusting the trust store {@code settings} name ({@code ssl.truststore.*}), for the probe. */
    private static SSLSocketFactory trusting(Properties settings, Path properties) throws IOException {
        String location = settings.getProperty("ssl.truststore.location");
        String password = settings.getProperty("ssl.truststore.password", "");
        if (location == null) {
            throw new IOException("A SASL_SSL listener but no ssl.truststore.location in " + properties);
        }
        try (var in = Files.newInputStream(Path.of(location))) {
            KeyStore store = KeyStore.getInstance(settings.getProperty("ssl.truststore.type", "PKCS12"));
            store.load(in, password.toCharArray());
            TrustManagerFactory trust = TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
            trust.init(store);
            SSLContext context = SSLContext.getInstance("TLS");
            context.init(null, trust.getTrustManagers(), null);
            return context.getSocketFactory();
        } catch (GeneralSecurityException e) {
            throw new IOException("Cannot read the trust store " + location + ": " + e.getMessage(), e);
        }
    }

    private RunningBroker launch(Path properties, Path log4j, int port, Path logFile, SSLSocketFactory probeTls)
            throws IOException {
        List<String> command = new ArrayList<>();
        command.add(ChildProcesses.java());
        command.addAll(jvmOptions);
        command.add("-Dlog4j2.configurationFile=" + log4j.toAbsolutePath());
        command.addAll(List.of(
                "-cp", classpath, "kafka.Kafka", properties.toAbsolutePath().toString()));
        if (probeTls == null) {
            return RunningBroker.launch(name(), command, port, logFile);
        }
        return RunningBroker.launch(
                name(),
                command,
                new OrderflowBrokerLauncher.Addresses(RunningBroker.HOST, port, RunningBroker.HOST, -1),
                logFile,
                null,
                probeTls);
    }

    /**
     * Single-node combined mode, as Kafka's own config/server.properties, on the given loopback ports, with
     * {@code partitions} partitions for topics created without a count.
     */
    static String serverProperties(Path dataDir, int port, int controllerPort, int partitions) {
        return serverProperties(dataDir, port, controllerPort, partitions, null);
    }

    /**
     * As above; with {@code saslSsl} the client (and inter-broker) listener is SASL_SSL instead of PLAINTEXT, and
     * its SASL and TLS settings follow Kafka's own.
     */
    static String serverProperties(Path dataDir, int port, int controllerPort, int partitions, SaslSsl saslSsl) {
        String host = RunningBroker.HOST;
        String listener = saslSsl == null ? "PLAINTEXT" : "SASL_SSL";
        String security = saslSsl == null ? "" : String.join("\n", saslSsl.serverSettings()) + "\n";
        return """
                process.roles=broker,controller
                node.id=1
                controller.quorum.bootstrap.servers=%1$s:%3$d
                listeners=%6$s://%1$s:%2$d,CONTROLLER://%1$s:%3$d
                advertised.listeners=%6$s://%1$s:%2$d,CONTROLLER://%1$s:%3$d
                inter.broker.listener.name=%6$s
                controller.listener.names=CONTROLLER
                listener.security.protocol.map=CONTROLLER:PLAINTEXT,%6$s:%6$s
                log.dirs=%4$s
                num.partitions=%5$d
                offsets.topic.replication.factor=1
                transaction.state.log.replication.factor=1
                transaction.state.log.min.isr=1
                share.coordinator.state.topic.replication.factor=1
                share.coordinator.state.topic.min.isr=1
                group.initial.rebalance.delay.ms=0
                """.formatted(host, port, controllerPort, dataDir, partitions, listener) + security;
    }

    private void format(Path properties, Path log4j, Path formatLog) throws IOException {
        List<String> command = new ArrayList<>(List.of(
                ChildProcesses.java(),
                "-Dlog4j2.configurationFile=" + log4j.toAbsolutePath(),
                "-cp",
                classpath,
                "kafka.tools.StorageTool",
                "format",
                "--cluster-id",
                randomClusterId(),
                "--config",
                properties.toAbsolutePath().toString(),
                "--standalone"));
        if (saslSsl != null) {
            command.addAll(List.of("--add-scram", saslSsl.scramCredential()));
        }
        Process process = ChildProcesses.start(
                new ProcessBuilder(command).redirectErrorStream(true).redirectOutput(formatLog.toFile()));
        try {
            if (!process.waitFor(2, TimeUnit.MINUTES)) {
                process.destroyForcibly();
                throw new IOException("kafka.tools.StorageTool format did not finish in 2 minutes; see " + formatLog);
            }
            if (process.exitValue() != 0) {
                throw new IOException(
                        "kafka.tools.StorageTool format exited with " + process.exitValue() + "; see " + formatLog);
            }
        } catch (InterruptedException e) {
            process.destroyForcibly();
            Thread.currentThread().interrupt();
            throw new IOException("Interrupted while formatting Kafka's storage", e);
        } finally {
            ChildProcesses.forget(process);
        }
    }

    /** Creates {@code file} empty and readable by its owner only (where the file system has POSIX permissions). */
    private static void ownerOnly(Path file) throws IOException {
        Files.deleteIfExists(file);
        try {
            Files.createFile(file, PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rw-------")));
        } catch (UnsupportedOperationException e) {
            Files.createFile(file); // not a POSIX file system (Windows): the directory's own ACLs apply
        }
    }

    /** Whether {@code kafka_2.13-VERSION.jar} is on the classpath, as an entry of its own or in a {@code dir/*} entry. */
    private boolean hasKafkaJar() {
        for (String entry : classpath.split(File.pathSeparator)) {
            Path jar = entry.endsWith("*")
                    ? Path.of(entry.substring(0, entry.length() - 1)).resolve(KAFKA_JAR)
                    : Path.of(entry);
            if (jar.endsWith(KAFKA_JAR) && Files.isRegularFile(jar)) {
                return true;
            }
        }
        return false;
    }

    private static String anchorVersion() {
        Properties anchor = new Properties();
        try (var in = ApacheKafkaLauncher.class.getResourceAsStream("kafka-anchor.properties")) {
            if (in == null) {
                throw new IllegalStateException("kafka-anchor.properties is missing from service-process's jar");
            }
            anchor.load(in);
        } catch (IOException e) {
            throw new java.io.UncheckedIOException("Cannot read kafka-anchor.properties", e);
        }
        String version = anchor.getProperty("version", "");
        if (!version.matches("\\d+\\.\\d+\\.\\d+.*")) {
            throw new IllegalStateException("kafka-anchor.properties names no version: '" + version + "'");
        }
        return version;
    }

    /** A cluster id as {@code kafka-storage random-uuid} prints one: 16 random bytes, URL-safe Base64. */
    static String randomClusterId() {
        SecureRandom random = new SecureRandom();
        ByteBuffer bytes = ByteBuffer.allocate(16);
        bytes.putLong(random.nextLong() & Long.MAX_VALUE | 1L << 62); // never the reserved all-zero ids
        bytes.putLong(random.nextLong());
        return Base64.getUrlEncoder().withoutPadding().encodeToString(bytes.array());
    }
}
