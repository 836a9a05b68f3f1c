package io.orderflow.foreignclients;

import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Assumptions;

/**
 * librdkafka, the engine of confluent-kafka (Python, Go, .NET), node-rdkafka and kcat, through Debian's
 * {@code kcat} package. Records are printed with {@code -f '%p %o %k %s\n'}; a group member's assignment is read
 * from the "Group ... rebalanced ... assigned:" lines kcat writes to stderr.
 */
final class Kcat implements ForeignClient {
    private static final Pattern PARTITION = Pattern.compile("\\[(\\d+)]");
    private static final Pattern TOPIC = Pattern.compile("^ *topic \"([^\"]+)\" with");
    private static final Pattern PROPERTY_ROW = Pattern.compile("^([a-z][a-z0-9._]*) +\\|");

    private final String version;
    private final String librdkafka;

    private Kcat(String version, String librdkafka) {
        this.version = version;
        this.librdkafka = librdkafka;
    }

    /** kcat from the PATH, or the test is skipped saying how to install it ({@code .ci/run} does). */
    static Kcat fromPath() {
        Optional<String> out = ClientProcess.output(List.of("kcat", "-V"), Path.of("."), Duration.ofSeconds(10));
        Assumptions.assumeTrue(
                out.isPresent() && out.get().contains("kcat - Apache Kafka producer and consumer tool"),
                "kcat is not installed: apt-get install kcat; .ci/run installs it");
        Matcher kcat = Pattern.compile("Version ([^ ]+)").matcher(out.get());
        Matcher librdkafka = Pattern.compile("librdkafka ([0-9][0-9.]*)").matcher(out.get());
        String linked = librdkafka.find() ? librdkafka.group(1) : "";
        return new Kcat(
                (kcat.find() ? "kcat " + kcat.group(1) : "kcat") + (linked.isEmpty() ? "" : ", librdkafka " + linked),
                linked);
    }

    /** The librdkafka version {@code kcat -V} reports ({@code 2.0.2}), or "" if it names none. */
    String librdkafkaVersion() {
        return librdkafka;
    }

    /** Whether the librdkafka kcat runs on is {@code major.minor} or later; false if kcat names no version. */
    boolean librdkafkaAtLeast(int major, int minor) {
        String[] parts = librdkafka.split("\\.");
        if (parts.length < 2) {
            return false;
        }
        int actualMajor = Integer.parseInt(parts[0]);
        return actualMajor > major || (actualMajor == major && Integer.parseInt(parts[1]) >= minor);
    }

    /**
     * The names of the configuration properties librdkafka knows, from the table {@code kcat -X list} prints (its
     * {@code CONFIGURATION.md}): the first cell of each row.
     */
    List<String> configurationProperties(Path dir) {
        String table = ClientProcess.output(List.of("kcat", "-X", "list"), dir, Duration.ofSeconds(10))
                .orElseThrow(() -> new AssertionError("kcat -X list failed; its output is above"));
        return table.lines()
                .map(PROPERTY_ROW::matcher)
                .filter(Matcher::find)
                .map(m -> m.group(1))
                .toList();
    }

    @Override
    public String name() {
        return version;
    }

    @Override
    public String slug() {
        return "kcat";
    }

    /**
     * {@code -b <bootstrap>} and, over SASL_SSL, the login: {@code security.protocol=SASL_SSL}, the mechanism, user and
     * password, and {@code ssl.ca.location} (librdkafka verifies the broker's host name by default since 2.0).
     */
    private static List<String> connect(Connection broker) {
        List<String> options = new ArrayList<>(List.of("-b", broker.bootstrap()));
        broker.saslSsl().ifPresent(login -> {
            for (String setting : List.of(
                    "security.protocol=SASL_SSL",
                    "sasl.mechanisms=" + login.mechanism(),
                    "sasl.username=" + login.username(),
                    "sasl.password=" + login.password(),
                    "ssl.ca.location=" + login.caPem())) {
                options.add("-X");
                options.add(setting);
            }
        });
        return options;
    }

    private static List<String> kcat(Connection broker, String... options) {
        List<String> command = new ArrayList<>(List.of("kcat"));
        command.addAll(connect(broker));
        command.addAll(List.of(options));
        return command;
    }

    @Override
    public void produce(Connection broker, String topic, List<String> lines, Path dir) {
        tryToProduce(broker, topic, lines, dir).awaitSuccess(Duration.ofMinutes(2));
    }

    /** An idempotent {@code acks=all} producer of {@code lines} that may fail: started, not waited for. */
    ClientProcess tryToProduce(Connection broker, String topic, List<String> lines, Path dir) {
        return ClientProcess.startProducer(
                "kcat-producer",
                kcat(broker, "-P", "-t", topic, "-K", " ", "-X", "enable.idempotence=true", "-X", "acks=all"),
                dir,
                Map.of(),
                lines);
    }

    @Override
    public ClientProcess groupMember(Connection broker, String topic, String group, String memberName, Path dir) {
        return groupMember(broker, topic, group, memberName, dir, List.of());
    }

    /** A group member as {@link #groupMember(Connection, String, String, String, Path)}, with {@code -X settings}. */
    ClientProcess groupMember(
            Connection broker, String topic, String group, String memberName, Path dir, List<String> settings) {
        List<String> options = new ArrayList<>(List.of(
                "-G",
                group,
                // Not "-o beginning": in a group, kcat applies -o to every assigned partition and so
                // ignores the committed offsets.
                "-X",
                "auto.offset.reset=earliest",
                "-u",
                "-f",
                "%p %o %k %s\\n",
                "-X",
                "auto.commit.interval.ms=100",
                "-X",
                "session.timeout.ms=10000"));
        for (String setting : settings) {
            options.add("-X");
            options.add(setting);
        }
        options.add(topic);
        return ClientProcess.start(
                "kcat-" + memberName, kcat(broker, options.toArray(String[]::new)), dir, Map.of(), "");
    }

    /** The whole topic from the earliest offset, without a group, exiting at its end ({@code -C -o beginning -e}). */
    ClientProcess readAll(Connection broker, String topic, Path dir) {
        return ClientProcess.start(
                "kcat-read-all",
                kcat(broker, "-C", "-t", topic, "-o", "beginning", "-e", "-u", "-f", "%p %o %k %s\\n"),
                dir,
                Map.of(),
                "");
    }

    /** The names of the broker's topics, from the metadata {@code kcat -L} prints. */
    List<String> topics(Connection broker, Path dir) {
        return ClientProcess.start("kcat-topics", kcat(broker, "-L"), dir, Map.of(), "")
                .awaitSuccess(Duration.ofMinutes(1))
                .stdoutLines()
                .stream()
                .map(TOPIC::matcher)
                .filter(Matcher::find)
                .map(m -> m.group(1))
                .toList();
    }

    @Override
    public Optional<Set<Integer>> assignment(ClientProcess member) {
        Optional<Set<Integer>> latest = Optional.empty();
        for (String line : member.stderrLines()) {
            int assigned = line.indexOf("assigned:");
            if (line.contains("rebalanced") && assigned >= 0) {
                Set<Integer> partitions = new TreeSet<>();
                Matcher m = PARTITION.matcher(line.substring(assigned));
                while (m.find()) {
                    partitions.add(Integer.parseInt(m.group(1)));
                }
                latest = Optional.of(partitions);
            } else if (line.contains("rebalanced") && line.contains("revoked:")) {
                latest = Optional.of(Set.of());
            }
        }
        return latest;
    }
}
