package io.orderflow.foreignclients;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;
import java.util.function.Function;
import java.util.function.Supplier;
import java.util.stream.Collectors;
import java.util.stream.IntStream;

/**
 * What every foreign client must do against our broker, run as a separate process, with nothing but its own
 * protocol implementation:
 *
 * <ol>
 *   <li>produce 60 keyed records (20 keys), creating the topic;
 *   <li>a first group member reads them all; a second joins, and the group rebalances into two members that
 *       share the four partitions;
 *   <li>40 more records are produced and the two members together read every one of them, each only from its own
 *       partitions and both some;
 *   <li>both stop (SIGTERM, as an operator stops them), committing; 20 more records are produced, and a new member of
 *       the same group reads exactly those 20: it resumed from the committed offsets;
 *   <li>a member of a new group replays the topic from the earliest offset: all 120 records, once each.
 * </ol>
 *
 * Throughout, each key's records sit in one partition in the order they were produced. Any failure shows the
 * transcripts of the client processes involved and the broker's log. The broker listens with PLAINTEXT, or with
 * SASL_SSL ({@link #overSaslSsl()}), where every client process logs in.
 */
final class ClientScenario {
    private static final Duration PATIENCE = Duration.ofSeconds(90);
    private static final int KEYS = 20;

    private final ForeignClient client;
    private final Path dir;
    private final Function<Path, PackagedBroker> broker;

    /** The scenario against a broker listening with PLAINTEXT. */
    ClientScenario(ForeignClient client, Path dir) {
        this(client, dir, PackagedBroker::start);
    }

    private ClientScenario(ForeignClient client, Path dir, Function<Path, PackagedBroker> broker) {
        this.client = client;
        this.dir = dir;
        this.broker = broker;
    }

    /** The same scenario against a broker listening with SASL_SSL, every client logging in with SCRAM-SHA-512. */
    ClientScenario overSaslSsl() {
        return new ClientScenario(client, dir, PackagedBroker::startSaslSsl);
    }

    /** Records {@code from} (inclusive) to {@code to} (exclusive): key {@code order-<i mod 20>}, value {@code i}. */
    static List<String> lines(int from, int to) {
        return IntStream.range(from, to)
                .mapToObj(i -> "order-" + (i % KEYS) + " " + i)
                .toList();
    }

    private static Set<Integer> values(List<ConsumedRecord> records) {
        return records.stream().map(r -> Integer.parseInt(r.value())).collect(Collectors.toSet());
    }

    private static Set<Integer> range(int from, int to) {
        return IntStream.range(from, to).boxed().collect(Collectors.toCollection(TreeSet::new));
    }

    void run() throws Exception {
        String topic = "orders-" + client.slug();
        String group = "orders-" + client.slug() + "-group";
        try (PackagedBroker broker = this.broker.apply(dir.resolve("broker"))) {
            Connection connection = broker.connection();
            List<ClientProcess> involved = new ArrayList<>();
            Supplier<String> transcripts =
                    () -> involved.stream().map(ClientProcess::transcript).collect(Collectors.joining("\n"))
                            + "\n--- broker log ---\n" + broker.log();

            client.produce(connection, topic, lines(0, 60), dir);

            try (ClientProcess a = client.groupMember(connection, topic, group, "member-a", dir)) {
                involved.add(a);
                await("the first member reads the first 60 records")
                        .atMost(PATIENCE)
                        .untilAsserted(() ->
                                assertThat(values(a.records())).as(transcripts).containsAll(range(0, 60)));
                // b starts only now that a owns every partition, so that its joining makes the group rebalance.
                try (ClientProcess b = client.groupMember(connection, topic, group, "member-b", dir)) {
                    involved.add(b);
                    shareWork(a, b, connection, topic, transcripts);
                    a.stop();
                    b.stop();
                }
            }

            client.produce(connection, topic, lines(100, 120), dir);
            try (ClientProcess resumed = client.groupMember(connection, topic, group, "member-c", dir)) {
                involved.add(resumed);
                await("a new member of the group reads from the committed offsets on")
                        .atMost(PATIENCE)
                        .untilAsserted(() -> assertThat(values(resumed.records()))
                                .as(transcripts)
                                .containsAll(range(100, 120)));
                resumed.stop();
                assertThat(values(resumed.records()))
                        .as("only what was produced after the group committed\n%s", transcripts.get())
                        .containsExactlyInAnyOrderElementsOf(range(100, 120));
            }

            try (ClientProcess replay = client.groupMember(connection, topic, group + "-replay", "replay", dir)) {
                involved.add(replay);
                await("a new group replays everything from the earliest offset")
                        .atMost(PATIENCE)
                        .untilAsserted(() -> assertThat(values(replay.records()))
                                .as(transcripts)
                                .containsAll(range(0, 120)));
                replay.stop();
                assertThat(replay.records()).as(transcripts).hasSize(120);
                assertKeysKeepTheirPartitionAndOrder(replay.records(), transcripts);
            }
        }
    }

    /** Steps 2 and 3: the group of two rebalances, then shares the next 40 records by partition. */
    private void shareWork(
            ClientProcess a, ClientProcess b, Connection connection, String topic, Supplier<String> transcripts) {
        await("the group rebalances into two members sharing the partitions")
                .atMost(PATIENCE)
                .untilAsserted(() -> {
                    Optional<Set<Integer>> ofA = client.assignment(a);
                    Optional<Set<Integer>> ofB = client.assignment(b);
                    assertThat(ofA).as(transcripts).isPresent();
                    assertThat(ofB).as(transcripts).isPresent();
                    assertThat(ofA.get()).isNotEmpty().doesNotContainAnyElementsOf(ofB.get());
                    assertThat(ofB.get()).isNotEmpty();
                    Set<Integer> all = new HashSet<>(ofA.get());
                    all.addAll(ofB.get());
                    assertThat(all).containsExactlyInAnyOrder(0, 1, 2, 3);
                });
        Set<Integer> partitionsOfA = client.assignment(a).orElseThrow();
        Set<Integer> partitionsOfB = client.assignment(b).orElseThrow();
        int seenByA = a.records().size();
        int seenByB = b.records().size();

        client.produce(connection, topic, lines(60, 100), dir);

        await("the two members together read the next 40 records")
                .atMost(PATIENCE)
                .untilAsserted(() -> {
                    Set<Integer> together = new HashSet<>(values(tail(a, seenByA)));
                    together.addAll(values(tail(b, seenByB)));
                    assertThat(together).as(transcripts).containsAll(range(60, 100));
                });
        assertThat(tail(a, seenByA))
                .as(transcripts)
                .isNotEmpty()
                .allSatisfy(r -> assertThat(partitionsOfA).contains(r.partition()));
        assertThat(tail(b, seenByB))
                .as(transcripts)
                .isNotEmpty()
                .allSatisfy(r -> assertThat(partitionsOfB).contains(r.partition()));
    }

    private static List<ConsumedRecord> tail(ClientProcess member, int from) {
        List<ConsumedRecord> records = member.records();
        return records.subList(Math.min(from, records.size()), records.size());
    }

    /** Each key in one partition; within it, offsets and production order agree. */
    static void assertKeysKeepTheirPartitionAndOrder(List<ConsumedRecord> records, Supplier<String> transcripts) {
        Map<String, List<ConsumedRecord>> byKey = new HashMap<>();
        records.forEach(
                r -> byKey.computeIfAbsent(r.key(), k -> new ArrayList<>()).add(r));
        assertThat(byKey).as(transcripts).hasSize(KEYS);
        byKey.forEach((key, list) -> {
            assertThat(list.stream().map(ConsumedRecord::partition).distinct())
                    .as("partitions of %s", key)
                    .hasSize(1);
            List<ConsumedRecord> byOffset = new ArrayList<>(list);
            byOffset.sort((x, y) -> Long.compare(x.offset(), y.offset()));
            assertThat(byOffset.stream().map(r -> Integer.parseInt(r.value())))
                    .as("values of %s in offset order", key)
                    .isSorted();
        });
    }
}
