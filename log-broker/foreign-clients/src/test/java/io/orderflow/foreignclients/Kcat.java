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

    private final String version;

    private Kcat(String version) {
        this.version = version;
    }

    /** kcat from the PATH, or the test is skipped saying how to install it ({@code .ci/run} does). */
    static Kcat fromPath() {
        Optional<String> out = ClientProcess.output(List.of("kcat", "-V"), Path.of("."), Duration.ofSeconds(10));
        Assumptions.assumeTrue(
                out.isPresent() && out.get().contains("kcat - Apache Kafka producer and consumer tool"),
                "kcat is not installed: apt-get install kcat; .ci/run installs it");
        Matcher kcat = Pattern.compile("Version ([^ ]+)").matcher(out.get());
        Matcher librdkafka = Pattern.compile("librdkafka ([0-9][0-9.]*)").matcher(out.get());
        return new Kcat((kcat.find() ? "kcat " + kcat.group(1) : "kcat")
                + (librdkafka.find() ? ", librdkafka " + librdkafka.group(1) : ""));
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
        return ClientProcess.start(
                "kcat-" + memberName,
                kcat(
                        broker,
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
                        "session.timeout.ms=10000",
                        topic),
                dir,
                Map.of(),
                "");
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
