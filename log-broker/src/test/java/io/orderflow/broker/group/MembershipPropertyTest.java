package io.orderflow.broker.group;

import static io.orderflow.broker.group.GroupFixture.get;
import static org.assertj.core.api.Assertions.assertThat;

import io.orderflow.broker.log.FlushPolicy;
import io.orderflow.broker.log.LogConfig;
import io.orderflow.property.Gen;
import io.orderflow.property.Properties;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.SequencedMap;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.function.Function;
import org.apache.kafka.common.message.DescribeGroupsResponseData.DescribedGroup;
import org.apache.kafka.common.message.DescribeGroupsResponseData.DescribedGroupMember;
import org.apache.kafka.common.message.JoinGroupResponseData;
import org.apache.kafka.common.message.SyncGroupResponseData;
import org.apache.kafka.common.protocol.Errors;
import org.junit.jupiter.api.Test;

/**
 * Random interleavings of joins, syncs, heartbeats, commits, leaves, passing time and restarts by a few
 * consumers, checked against what the protocol promises:
 *
 * <ul>
 *   <li>within one coordinator run, each generation has one member list: every member told "you are in
 *       generation g" is in the list the leader of g received, and every member of that list was told so;
 *   <li>a member's generations only go up;
 *   <li>a SyncGroup succeeds only with the assignment the leader of that generation made for that very member,
 *       so a removed member never gets an assignment;
 *   <li>a client is never a member twice; an Empty group has no members; a Stable group's members all have
 *       their assignment; a successful heartbeat or commit comes from a current member;
 *   <li>every parked JoinGroup and SyncGroup is answered once enough time passes.
 * </ul>
 */
class MembershipPropertyTest {
    private static final int CLIENTS = 4;
    private static final String GROUP = "g";

    sealed interface Op {}

    record Join(int client) implements Op {}

    record Sync(int client) implements Op {}

    record Heartbeat(int client) implements Op {}

    record Commit(int client) implements Op {}

    record Leave(int client) implements Op {}

    record Advance(long ms) implements Op {}

    record Restart() implements Op {}

    /** Each kind of operation with its weight, in a fixed order, so that a seed draws the same operations. */
    private static final SequencedMap<Function<Gen, ? extends Op>, Integer> OPERATIONS = new LinkedHashMap<>();

    static {
        OPERATIONS.put(gen -> new Join(client(gen)), 8);
        OPERATIONS.put(gen -> new Sync(client(gen)), 8);
        OPERATIONS.put(gen -> new Heartbeat(client(gen)), 6);
        OPERATIONS.put(gen -> new Commit(client(gen)), 2);
        OPERATIONS.put(gen -> new Leave(client(gen)), 2);
        OPERATIONS.put(gen -> new Advance(gen.oneOf(0L, 1_000L, 3_000L, 6_000L, 11_000L, 31_000L)), 6);
        OPERATIONS.put(gen -> new Restart(), 1);
    }

    static List<Op> operations(Gen gen) {
        return gen.list(0, 60, g -> g.frequency(OPERATIONS));
    }

    private static int client(Gen gen) {
        return gen.ints(0, CLIENTS - 1);
    }

    /** One consumer: its member, its request in flight, and the join answer it has not synced yet. */
    private static final class Client {
        final TestMember member;
        CompletableFuture<JoinGroupResponseData> joining;
        CompletableFuture<SyncGroupResponseData> syncing;
        int syncingGeneration;
        JoinGroupResponseData toSync;
        int lastGeneration = -1;
        /** Every member id this client has had; all but the current one are given up. */
        final Set<String> ids = new HashSet<>();

        Client(TestMember member) {
            this.member = member;
        }
    }

    /** What the oracle learned in one coordinator run. */
    private static final class Run {
        /**
         * Ids clients had given up before this run started. Leaving is not persisted (as in Kafka), so a restart
         * can bring such a member back until its session expires.
         */
        final Set<String> mayLinger = new HashSet<>();

        final Map<Integer, Set<String>> leaderLists = new HashMap<>();
        final Map<Integer, Set<String>> toldJoined = new HashMap<>();
    }

    @Test
    void membershipKeepsItsPromises() {
        Properties.forAll(100, gen -> {
            List<Op> ops = operations(gen);
            Path dir = Files.createTempDirectory("membership-property");
            LogConfig relaxed = LogConfig.defaults()
                    .with(LogConfig.CLEANUP_POLICY, "compact")
                    .withFlushPolicy(FlushPolicy.OPERATING_SYSTEM);
            try (GroupFixture fixture =
                    GroupFixture.builder(dir).logConfig(relaxed).build()) {
                List<Client> clients = new ArrayList<>();
                for (int i = 0; i < CLIENTS; i++) {
                    TestMember member = fixture.member(GROUP, "client-" + i);
                    // Half the clients outlive a rebalance timeout without heartbeating, half do not.
                    member.sessionTimeoutMs = i % 2 == 0 ? 45_000 : 10_000;
                    clients.add(new Client(member));
                }
                Run run = new Run();
                for (Op op : ops) {
                    run = apply(fixture, clients, run, op);
                    collect(clients, run);
                    clients.forEach(c -> {
                        if (!c.member.memberId.isEmpty()) {
                            c.ids.add(c.member.memberId);
                        }
                    });
                    checkGroup(fixture, clients, run);
                }
                for (int i = 0; i < 3; i++) {
                    fixture.advance(310_000);
                    collect(clients, run);
                }
                for (Client c : clients) {
                    assertThat(c.joining == null || c.joining.isDone())
                            .as("join of %s answered", c.member)
                            .isTrue();
                    assertThat(c.syncing == null || c.syncing.isDone())
                            .as("sync of %s answered", c.member)
                            .isTrue();
                }
            } finally {
                deleteRecursively(dir);
            }
        });
    }

    private static Run apply(GroupFixture fixture, List<Client> clients, Run run, Op op) {
        switch (op) {
            case Join j -> {
                Client c = clients.get(j.client());
                if (c.joining == null && c.syncing == null) {
                    c.joining = c.member.join();
                }
            }
            case Sync s -> {
                Client c = clients.get(s.client());
                if (c.toSync != null && c.syncing == null && c.joining == null) {
                    Map<String, byte[]> assignment = new HashMap<>();
                    int generation = c.toSync.generationId();
                    c.toSync.members().forEach(m -> assignment.put(m.memberId(), text(generation, m.memberId())));
                    c.syncingGeneration = generation;
                    c.syncing = c.member.sendSync(assignment);
                    c.toSync = null;
                }
            }
            case Heartbeat h -> {
                Client c = clients.get(h.client());
                if (c.joining == null && c.syncing == null && !c.member.memberId.isEmpty()) {
                    if (c.member.heartbeat() == Errors.NONE) {
                        assertThat(GroupFixture.memberIds(fixture.describe(GROUP)))
                                .contains(c.member.memberId);
                    }
                }
            }
            case Commit k -> {
                Client c = clients.get(k.client());
                if (c.joining == null && c.syncing == null && !c.member.memberId.isEmpty()) {
                    Errors error = c.member.commit("orders", 0, 1);
                    assertThat(error)
                            .isIn(
                                    Errors.NONE,
                                    Errors.REBALANCE_IN_PROGRESS,
                                    Errors.ILLEGAL_GENERATION,
                                    Errors.UNKNOWN_MEMBER_ID);
                    // Generation -1 is a "simple" commit, accepted from anyone while the group is Empty.
                    if (error == Errors.NONE && c.member.generation >= 0) {
                        assertThat(GroupFixture.memberIds(fixture.describe(GROUP)))
                                .contains(c.member.memberId);
                    }
                }
            }
            case Leave l -> {
                Client c = clients.get(l.client());
                if (c.joining == null && c.syncing == null && !c.member.memberId.isEmpty()) {
                    c.member.leave();
                    c.member.memberId = "";
                    c.member.generation = -1;
                    c.toSync = null;
                }
            }
            case Advance a -> fixture.advance(a.ms());
            case Restart r -> {
                fixture.restart();
                // Requests in flight died with the old coordinator; their clients retry from what they know.
                for (Client c : clients) {
                    c.joining = null;
                    c.syncing = null;
                    c.toSync = null;
                    c.lastGeneration = -1;
                }
                Run next = new Run();
                next.mayLinger.addAll(run.mayLinger);
                clients.forEach(c -> c.ids.stream()
                        .filter(id -> !id.equals(c.member.memberId))
                        .forEach(next.mayLinger::add));
                return next;
            }
        }
        return run;
    }

    /** Takes in every answer that arrived, checking it against what the run has promised so far. */
    private static void collect(List<Client> clients, Run run) {
        for (Client c : clients) {
            if (c.joining != null && c.joining.isDone()) {
                JoinGroupResponseData r = get(c.joining);
                c.joining = null;
                if (Errors.forCode(r.errorCode()) == Errors.NONE) {
                    int g = r.generationId();
                    assertThat(g).as("generations of %s only go up", c.member).isGreaterThanOrEqualTo(c.lastGeneration);
                    c.lastGeneration = g;
                    run.toldJoined.computeIfAbsent(g, x -> new HashSet<>()).add(r.memberId());
                    if (r.leader().equals(r.memberId()) && !r.members().isEmpty()) {
                        Set<String> list = new HashSet<>();
                        r.members().forEach(m -> list.add(m.memberId()));
                        Set<String> previous = run.leaderLists.putIfAbsent(g, list);
                        if (previous != null) {
                            assertThat(list)
                                    .as("one member list for generation %d", g)
                                    .isEqualTo(previous);
                        }
                    }
                    c.toSync = r;
                }
            }
            if (c.syncing != null && c.syncing.isDone()) {
                SyncGroupResponseData r = get(c.syncing);
                c.syncing = null;
                if (Errors.forCode(r.errorCode()) == Errors.NONE) {
                    assertThat(GroupFixture.utf8(r.assignment()))
                            .as("%s gets the assignment made for it", c.member)
                            .isEqualTo(GroupFixture.utf8(text(c.syncingGeneration, c.member.memberId)));
                }
            }
        }
        run.leaderLists.forEach((g, list) -> assertThat(list)
                .as("members told they joined generation %d are in its leader's list", g)
                .containsAll(run.toldJoined.getOrDefault(g, Set.of())));
        run.leaderLists.forEach((g, list) -> assertThat(run.toldJoined.getOrDefault(g, Set.of()))
                .as("every member of generation %d's list was told it joined", g)
                .containsAll(list));
    }

    private static void checkGroup(GroupFixture fixture, List<Client> clients, Run run) {
        DescribedGroup group = fixture.describe(GROUP);
        List<DescribedGroupMember> live = group.members().stream()
                .filter(m -> !run.mayLinger.contains(m.memberId()))
                .toList();
        assertThat(live.stream().map(DescribedGroupMember::clientId).toList())
                .as("no client is a member twice")
                .doesNotHaveDuplicates();
        for (Client c : clients) {
            Set<String> givenUp = new HashSet<>(c.ids);
            givenUp.remove(c.member.memberId);
            assertThat(live).as("%s has given up %s", c.member, givenUp).noneMatch(m -> givenUp.contains(m.memberId()));
        }
        if (group.groupState().equals("Empty") || group.groupState().equals("Dead")) {
            assertThat(group.members()).isEmpty();
        }
        if (group.groupState().equals("Stable")) {
            assertThat(group.members())
                    .allSatisfy(m ->
                            assertThat(GroupFixture.utf8(m.memberAssignment())).startsWith("g"));
        }
    }

    private static byte[] text(int generation, String memberId) {
        return GroupFixture.utf8("g" + generation + ":" + memberId);
    }

    private static void deleteRecursively(Path dir) throws IOException {
        try (var paths = Files.walk(dir)) {
            for (Path p : paths.sorted(java.util.Comparator.reverseOrder()).toList()) {
                Files.deleteIfExists(p);
            }
        }
    }
}
