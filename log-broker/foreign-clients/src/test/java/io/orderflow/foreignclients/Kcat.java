package io.orderflow.foreignclients;

import java.nio.file.Path;
import java.time.Duration;
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

    @Override
    public void produce(String bootstrap, String topic, List<String> lines, Path dir) {
        ClientProcess.produce(
                "kcat-producer",
                List.of(
                        "kcat",
                        "-b",
                        bootstrap,
                        "-P",
                        "-t",
                        topic,
                        "-K",
                        " ",
                        "-X",
                        "enable.idempotence=true",
                        "-X",
                        "acks=all"),
                dir,
                Map.of(),
                lines);
    }

    @Override
    public ClientProcess groupMember(String bootstrap, String topic, String group, String memberName, Path dir) {
        return ClientProcess.start(
                "kcat-" + memberName,
                List.of(
                        "kcat",
                        "-b",
                        bootstrap,
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
    ClientProcess readAll(String bootstrap, String topic, Path dir) {
        return ClientProcess.start(
                "kcat-read-all",
                List.of(
                        "kcat",
                        "-b",
                        bootstrap,
                        "-C",
                        "-t",
                        topic,
                        "-o",
                        "beginning",
                        "-e",
                        "-u",
                        "-f",
                        "%p %o %k %s\\n"),
                dir,
                Map.of(),
                "");
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
