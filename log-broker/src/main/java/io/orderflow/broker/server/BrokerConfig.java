package io.orderflow.broker.server;

import io.orderflow.broker.group.GroupCoordinatorConfig;
import io.orderflow.broker.log.LogConfig;
import io.orderflow.broker.network.ConnectionThreads;
import io.orderflow.broker.network.NetworkLimits;
import io.orderflow.broker.security.ListenerProtocol;
import io.orderflow.broker.security.TlsSettings;
import java.io.IOException;
import java.io.Reader;
import java.net.InetAddress;
import java.net.UnknownHostException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;

/**
 * The broker's settings, from a properties file and/or command-line overrides, named as Apache Kafka names
 * them where Kafka has the same setting. Every key, its default and meaning is listed in {@link #KEYS} and
 * printed by {@code --help}.
 */
public record BrokerConfig(
        int nodeId,
        String listenHost,
        int port,
        String advertisedHost,
        int advertisedPort,
        Path dataDir,
        boolean autoCreateTopics,
        int numPartitions,
        int maxPartitions,
        NetworkLimits limits,
        ConnectionThreads connectionThreads,
        LogConfig logDefaults,
        long retentionCheckIntervalMs,
        GroupCoordinatorConfig groups,
        QuotaWindows quotaWindows,
        int metricsPort,
        List<ListenerSpec> listeners,
        SecurityConfig security) {

    /** How client quotas measure rates: {@code samples} windows of {@code windowMs} each. */
    public record QuotaWindows(int samples, long windowMs) {}

    /** Key, default, description: the documentation of every setting. */
    public static final Map<String, String[]> KEYS = new LinkedHashMap<>();

    static {
        doc("node.id", "1", "this broker's node id");
        doc("listen.host", "0.0.0.0", "address to bind the Kafka listener to");
        doc("port", "9092", "Kafka listener port (0 picks a free one)");
        doc("advertised.host", "localhost", "host clients are told to connect to");
        doc("advertised.port", "same as port", "port clients are told to connect to");
        doc("log.dirs", ".orderflow/broker", "data directory");
        doc("auto.create.topics.enable", "true", "create unknown topics on Metadata requests that allow it");
        doc("num.partitions", "1", "partitions of auto-created topics and CreateTopics without a count");
        doc(
                "max.partitions",
                "1000",
                "partitions of all topics together (each keeps three files open); creating or growing a topic beyond it"
                        + " is a POLICY_VIOLATION");
        doc(
                "socket.request.max.bytes",
                "104857600",
                "largest request frame accepted; larger ones close the connection");
        doc(
                "queued.max.request.bytes",
                "0",
                "bytes of request frames being read and decoded at once; a larger frame waits, and its connection is not"
                        + " read meanwhile (0: a quarter of the heap; -1: unbounded)");
        doc("max.connections", "10000", "connections on all listeners together; more are closed at once");
        doc("max.connections.per.ip", "2000", "connections from one address; more are closed at once");
        doc(
                "max.connections.per.ip.overrides",
                "",
                "a limit of its own for some addresses or host names, host:count,... (e.g. 127.0.0.1:20000)");
        doc(
                "connections.max.idle.ms",
                "600000",
                "close a connection that has completed no request for this long (a frame still arriving is idle)");
        doc(
                "connection.threads",
                "platform",
                "platform: an OS thread per connection (two for a producer), lowest latency; virtual: for many thousands");
        doc("log.segment.bytes", "1073741824", "default segment.bytes");
        doc("log.roll.ms", "604800000", "default segment.ms");
        doc("log.retention.ms", "604800000", "default retention.ms (-1: forever)");
        doc("log.retention.bytes", "-1", "default retention.bytes per partition (-1: unlimited)");
        doc("log.cleanup.policy", "delete", "default cleanup.policy");
        doc("log.flush.interval.messages", "1", "default flush.messages (1: fsync before acknowledging)");
        doc("log.flush.interval.ms", "9223372036854775807", "default flush.ms");
        doc("log.retention.check.interval.ms", "1000", "how often retention, compaction and flush.ms run");
        doc("group.initial.rebalance.delay.ms", "3000", "wait for more members before the first rebalance of a group");
        doc(
                "group.max.size",
                "1000",
                "members of one group, and new members waiting to rejoin with their id (at most 10000 of those on the"
                        + " broker); more get GROUP_MAX_SIZE_REACHED");
        doc(
                "group.max.count",
                "10000",
                "consumer groups on the broker; a JoinGroup that would create one more gets GROUP_MAX_SIZE_REACHED");
        doc(
                "group.consumer.session.timeout.ms",
                "45000",
                "a KIP-848 consumer group member without a heartbeat for this long is removed from its group");
        doc(
                "group.consumer.heartbeat.interval.ms",
                "5000",
                "how often KIP-848 consumer group members are told to heartbeat");
        doc(
                "quota.window.num",
                "11",
                "windows a client quota's rate is measured over (a new client may use all but one at once)");
        doc("quota.window.size.seconds", "1", "length of each client quota window");
        doc("metrics.port", "9404", "HTTP port for /metrics (Prometheus) and /health; -1 disables it");
        doc(
                "listeners",
                "PLAINTEXT://{listen.host}:{port}",
                "the listeners, NAME://host:port,... (e.g. PLAINTEXT://127.0.0.1:9092,SASL_SSL://:9093)");
        doc(
                "advertised.listeners",
                "each listener at advertised.host",
                "the addresses clients are told, NAME://host:port,... (port 0: the bound port)");
        doc(
                "listener.security.protocol.map",
                "",
                "each listener name's protocol, NAME:PROTOCOL,... (empty: PLAINTEXT, SSL, SASL_PLAINTEXT and SASL_SSL"
                        + " each name their own)");
        doc("ssl.keystore.location", "", "the broker's key and certificate chain (TLS listeners)");
        doc("ssl.keystore.type", "PKCS12", "PKCS12, JKS or PEM");
        doc("ssl.keystore.password", "", "the key store's password");
        doc("ssl.key.password", "", "the private key's password (an encrypted PEM key)");
        doc("ssl.truststore.location", "", "certificates trusted for client certificates (empty: the JDK's)");
        doc("ssl.truststore.type", "PKCS12", "PKCS12, JKS or PEM");
        doc("ssl.truststore.password", "", "the trust store's password");
        doc("ssl.client.auth", "none", "none, requested or required: ask TLS clients for a certificate");
        doc("ssl.enabled.protocols", "TLSv1.3,TLSv1.2", "TLS versions offered");
        doc(
                "sasl.enabled.mechanisms",
                "SCRAM-SHA-256,SCRAM-SHA-512,PLAIN",
                "SASL mechanisms offered; PLAIN only on SASL_SSL listeners");
        doc("connections.max.reauth.ms", "0", "SASL login lifetime; clients log in again before it ends (0: no limit)");
        doc(
                "connection.failed.authentication.delay.ms",
                "100",
                "delay before answering a failed login, doubling per failure from the host within a minute");
        doc(
                "scram.bootstrap.credentials",
                "",
                "users created at start if they lack that credential: SCRAM-SHA-512=[name=N,password=P];...");
        doc("authorizer.class.name", "", "empty: no ACLs; " + SecurityConfig.STANDARD_AUTHORIZER + ": ACLs enforced");
        doc("super.users", "", "principals allowed everything, User:a;User:b");
        doc("allow.everyone.if.no.acl.found", "false", "with ACLs on: allow a resource nobody has an ACL for");
    }

    private static void doc(String key, String fallback, String meaning) {
        KEYS.put(key, new String[] {fallback, meaning});
    }

    /** Reads {@code file} (may be null) and applies {@code overrides} on top; unknown keys are rejected. */
    public static BrokerConfig load(Path file, Map<String, String> overrides) {
        Map<String, String> values = new LinkedHashMap<>();
        if (file != null) {
            Properties props = new Properties();
            try (Reader reader = Files.newBufferedReader(file)) {
                props.load(reader);
            } catch (IOException e) {
                throw new IllegalArgumentException("Cannot read config file " + file + ": " + e.getMessage(), e);
            }
            props.stringPropertyNames()
                    .forEach(k -> values.put(k, props.getProperty(k).trim()));
        }
        values.putAll(overrides);
        return from(values);
    }

    public static BrokerConfig from(Map<String, String> values) {
        for (String key : values.keySet()) {
            if (!KEYS.containsKey(key)) {
                throw new IllegalArgumentException("Unknown setting " + key + "; --help lists the settings");
            }
        }
        int port = integer(values, "port");
        LogConfig logDefaults = LogConfig.defaults()
                .with(Map.of(
                        LogConfig.SEGMENT_BYTES, get(values, "log.segment.bytes"),
                        LogConfig.SEGMENT_MS, get(values, "log.roll.ms"),
                        LogConfig.RETENTION_MS, get(values, "log.retention.ms"),
                        LogConfig.RETENTION_BYTES, get(values, "log.retention.bytes"),
                        LogConfig.CLEANUP_POLICY, get(values, "log.cleanup.policy"),
                        LogConfig.FLUSH_MESSAGES, get(values, "log.flush.interval.messages"),
                        LogConfig.FLUSH_MS, get(values, "log.flush.interval.ms")));
        String advertisedPort = values.get("advertised.port");
        String listeners = values.get("listeners");
        List<ListenerSpec> specs;
        if (listeners == null || listeners.isBlank()) {
            specs = List.of(new ListenerSpec(
                    "PLAINTEXT",
                    get(values, "listen.host"),
                    port,
                    ListenerProtocol.PLAINTEXT,
                    get(values, "advertised.host"),
                    advertisedPort == null ? -1 : Integer.parseInt(advertisedPort)));
        } else {
            specs = ListenerSpec.parse(
                    listeners,
                    values.get("advertised.listeners"),
                    get(values, "listener.security.protocol.map").isBlank()
                            ? ListenerSpec.DEFAULT_PROTOCOL_MAP
                            : get(values, "listener.security.protocol.map"),
                    get(values, "advertised.host"));
        }
        return new BrokerConfig(
                integer(values, "node.id"),
                get(values, "listen.host"),
                port,
                get(values, "advertised.host"),
                advertisedPort == null ? -1 : Integer.parseInt(advertisedPort),
                Path.of(get(values, "log.dirs")),
                Boolean.parseBoolean(get(values, "auto.create.topics.enable")),
                integer(values, "num.partitions"),
                integer(values, "max.partitions"),
                networkLimits(values),
                ConnectionThreads.parse(get(values, "connection.threads")),
                logDefaults,
                Long.parseLong(get(values, "log.retention.check.interval.ms")),
                GroupCoordinatorConfig.defaults()
                        .withInitialRebalanceDelayMs(integer(values, "group.initial.rebalance.delay.ms"))
                        .withMaxGroupSize(integer(values, "group.max.size"))
                        .withMaxGroups(integer(values, "group.max.count"))
                        .withConsumerGroupTimeouts(
                                integer(values, "group.consumer.session.timeout.ms"),
                                integer(values, "group.consumer.heartbeat.interval.ms")),
                quotaWindows(values),
                integer(values, "metrics.port"),
                specs,
                security(values, specs));
    }

    private static QuotaWindows quotaWindows(Map<String, String> values) {
        int samples = integer(values, "quota.window.num");
        int seconds = integer(values, "quota.window.size.seconds");
        if (samples < 2) {
            throw new IllegalArgumentException("Setting quota.window.num=" + samples + " must be at least 2");
        }
        if (seconds < 1) {
            throw new IllegalArgumentException("Setting quota.window.size.seconds=" + seconds + " must be at least 1");
        }
        return new QuotaWindows(samples, seconds * 1000L);
    }

    private static NetworkLimits networkLimits(Map<String, String> values) {
        Map<InetAddress, Integer> overrides = new LinkedHashMap<>();
        String listed = get(values, "max.connections.per.ip.overrides");
        for (String entry : listed.isBlank() ? new String[0] : listed.split("\\s*,\\s*")) {
            int colon = entry.lastIndexOf(':');
            if (colon <= 0) {
                throw new IllegalArgumentException(
                        "Setting max.connections.per.ip.overrides: " + entry + " is not host:count");
            }
            String host = entry.substring(0, colon).strip();
            int count = wholeNumber(
                    "max.connections.per.ip.overrides",
                    entry.substring(colon + 1).strip());
            try {
                for (InetAddress address : InetAddress.getAllByName(host)) {
                    overrides.put(address, count);
                }
            } catch (UnknownHostException e) {
                throw new IllegalArgumentException(
                        "Setting max.connections.per.ip.overrides: the host " + host + " is unknown", e);
            }
        }
        return new NetworkLimits(
                integer(values, "socket.request.max.bytes"),
                integer(values, "max.connections"),
                integer(values, "max.connections.per.ip"),
                overrides,
                Long.parseLong(get(values, "connections.max.idle.ms")),
                Long.parseLong(get(values, "queued.max.request.bytes")));
    }

    private static SecurityConfig security(Map<String, String> values, List<ListenerSpec> listeners) {
        String keystore = get(values, "ssl.keystore.location");
        boolean tlsListener = listeners.stream().anyMatch(l -> l.protocol().usesTls());
        if (tlsListener && keystore.isBlank()) {
            throw new IllegalArgumentException("A TLS listener (SSL or SASL_SSL) needs ssl.keystore.location");
        }
        TlsSettings tls = keystore.isBlank()
                ? null
                : new TlsSettings(
                        Path.of(keystore),
                        get(values, "ssl.keystore.type"),
                        password(values, "ssl.keystore.password"),
                        password(values, "ssl.key.password"),
                        get(values, "ssl.truststore.location").isBlank()
                                ? null
                                : Path.of(get(values, "ssl.truststore.location")),
                        get(values, "ssl.truststore.type"),
                        password(values, "ssl.truststore.password"),
                        get(values, "ssl.client.auth"),
                        List.of(get(values, "ssl.enabled.protocols").split("\\s*,\\s*")));
        return new SecurityConfig(
                tls,
                SecurityConfig.mechanisms(get(values, "sasl.enabled.mechanisms")),
                Long.parseLong(get(values, "connections.max.reauth.ms")),
                Long.parseLong(get(values, "connection.failed.authentication.delay.ms")),
                SecurityConfig.bootstrap(get(values, "scram.bootstrap.credentials")),
                SecurityConfig.authorizer(get(values, "authorizer.class.name")),
                SecurityConfig.superUsers(get(values, "super.users")),
                Boolean.parseBoolean(get(values, "allow.everyone.if.no.acl.found")));
    }

    private static char[] password(Map<String, String> values, String key) {
        String value = get(values, key);
        return value.isEmpty() ? null : value.toCharArray();
    }

    private static String get(Map<String, String> values, String key) {
        return values.getOrDefault(key, KEYS.get(key)[0]);
    }

    private static int integer(Map<String, String> values, String key) {
        return wholeNumber(key, get(values, key));
    }

    private static int wholeNumber(String key, String value) {
        try {
            return Integer.parseInt(value);
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException("Setting " + key + "=" + value + " is not a whole number", e);
        }
    }
}
