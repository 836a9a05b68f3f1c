package io.orderflow.broker.group;

import static io.orderflow.broker.group.GroupFixture.get;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Queue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.apache.kafka.common.message.JoinGroupResponseData;
import org.apache.kafka.common.message.SyncGroupResponseData;
import org.apache.kafka.common.protocol.Errors;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Many consumers joining one group at once, each on its own thread as each connection has its own thread in
 * the broker. The clock stands still, so no session or rebalance timeout can remove anyone: every error
 * other than the rebalance signals is a bug.
 */
class ConcurrentJoinTest {
    private static final int MEMBERS = 8;

    @TempDir
    Path dir;

    private GroupFixture fixture;
    private ExecutorService threads;

    @BeforeEach
    void setUp() {
        fixture = GroupFixture.builder(dir).build();
        threads = Executors.newFixedThreadPool(MEMBERS + 1);
    }

    @AfterEach
    void tearDown() throws InterruptedException {
        threads.shutdownNow();
        threads.awaitTermination(10, TimeUnit.SECONDS);
        fixture.close();
    }

    @Test
    void membersJoiningFromManyThreadsAllEndUpInTheSameGeneration() throws Exception {
        CountDownLatch start = new CountDownLatch(1);
        List<TestMember> members = new ArrayList<>();
        List<Future<JoinGroupResponseData>> joins = new ArrayList<>();
        for (int i = 0; i < MEMBERS; i++) {
            TestMember m = fixture.member("g", "consumer-" + i);
            members.add(m);
            joins.add(threads.submit(() -> {
                start.await();
                return get(m.join());
            }));
        }

        // Nobody ticks yet: the initial rebalance cannot complete before everyone has joined.
        start.countDown();
        await().atMost(Duration.ofSeconds(10))
                .until(() -> fixture.describe("g").members().size() == MEMBERS);
        fixture.tick();

        List<JoinGroupResponseData> responses = new ArrayList<>();
        for (Future<JoinGroupResponseData> f : joins) {
            responses.add(f.get(10, TimeUnit.SECONDS));
        }
        assertThat(responses).allSatisfy(r -> {
            assertThat(Errors.forCode(r.errorCode())).isEqualTo(Errors.NONE);
            assertThat(r.generationId()).isEqualTo(1);
        });
        assertThat(responses.stream().map(JoinGroupResponseData::memberId).distinct())
                .hasSize(MEMBERS);
        assertThat(responses.stream().filter(r -> !r.members().isEmpty()).toList())
                .singleElement()
                .satisfies(leader -> assertThat(leader.members()).hasSize(MEMBERS));

        List<CompletableFuture<SyncGroupResponseData>> syncs = new ArrayList<>();
        for (TestMember m : members) {
            Map<String, byte[]> assignment = new HashMap<>();
            if (m.isLeader()) {
                members.forEach(x -> assignment.put(x.memberId, GroupFixture.utf8("for-" + x.clientId)));
            }
            syncs.add(CompletableFuture.supplyAsync(() -> get(m.sendSync(assignment)), threads));
        }
        for (int i = 0; i < MEMBERS; i++) {
            assertThat(Errors.forCode(get(syncs.get(i)).errorCode())).isEqualTo(Errors.NONE);
            assertThat(members.get(i).assignmentText()).isEqualTo("for-consumer-" + i);
        }
        assertThat(fixture.state("g")).isEqualTo(GroupState.STABLE);
    }

    @Test
    void consumersRacingTheTickerConvergeWithoutSpuriousErrors() throws Exception {
        Queue<String> unexpected = new ConcurrentLinkedQueue<>();
        AtomicBoolean stop = new AtomicBoolean();
        List<TestMember> members = new ArrayList<>();
        threads.submit(() -> {
            while (!stop.get()) {
                fixture.tick();
                Thread.onSpinWait();
            }
        });
        for (int i = 0; i < MEMBERS; i++) {
            TestMember m = fixture.member("g", "consumer-" + i);
            members.add(m);
            threads.submit(() -> consume(m, members, stop, unexpected));
        }

        await().atMost(Duration.ofSeconds(30)).until(() -> {
            var group = fixture.describe("g");
            return group.groupState().equals("Stable")
                    && group.members().size() == MEMBERS
                    && members.stream().allMatch(m -> m.assignment != null);
        });
        stop.set(true);

        assertThat(unexpected).isEmpty();
        int generation = members.getFirst().generation;
        assertThat(members).allSatisfy(m -> assertThat(m.generation).isEqualTo(generation));
        assertThat(fixture.describe("g").members())
                .allSatisfy(
                        m -> assertThat(GroupFixture.utf8(m.memberAssignment())).isEqualTo(m.memberId()));
    }

    /** A consumer's loop: join, sync (the leader assigns to every member it was given), heartbeat, rejoin. */
    private static void consume(TestMember m, List<TestMember> all, AtomicBoolean stop, Queue<String> unexpected) {
        boolean mustJoin = true;
        while (!stop.get()) {
            if (mustJoin) {
                JoinGroupResponseData joined = get(m.join());
                Errors error = Errors.forCode(joined.errorCode());
                if (error != Errors.NONE) {
                    unexpected.add(m + " join: " + error);
                    return;
                }
                Map<String, byte[]> assignment = new HashMap<>();
                joined.members().forEach(x -> assignment.put(x.memberId(), GroupFixture.utf8(x.memberId())));
                m.assignment = null;
                SyncGroupResponseData synced = get(m.sendSync(assignment));
                Errors syncError = Errors.forCode(synced.errorCode());
                if (syncError == Errors.REBALANCE_IN_PROGRESS) {
                    continue;
                }
                if (syncError != Errors.NONE) {
                    unexpected.add(m + " sync: " + syncError);
                    return;
                }
                mustJoin = false;
            }
            Errors heartbeat = m.heartbeat();
            if (heartbeat == Errors.REBALANCE_IN_PROGRESS) {
                mustJoin = true;
            } else if (heartbeat != Errors.NONE) {
                unexpected.add(m + " heartbeat: " + heartbeat);
                return;
            }
            Thread.onSpinWait();
        }
    }
}
