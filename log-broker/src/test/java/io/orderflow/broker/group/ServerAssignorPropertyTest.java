package io.orderflow.broker.group;

import static org.assertj.core.api.Assertions.assertThat;

import io.orderflow.broker.group.ServerAssignor.Subscriber;
import io.orderflow.broker.group.ServerAssignor.TopicShape;
import io.orderflow.property.Gen;
import io.orderflow.property.Properties;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.SortedMap;
import java.util.TreeMap;
import java.util.UUID;
import org.junit.jupiter.api.Test;

/**
 * The server-side assignors against what KIP-848 promises of any assignment, over random topics and subscriptions:
 * every partition of a subscribed topic goes to exactly one member subscribed to it; and what each promises besides:
 * {@code uniform} is balanced to one partition when all members subscribe alike and moves only a newcomer's share
 * when a member joins; {@code range} gives co-partitioned topics the same partition numbers per member.
 */
class ServerAssignorPropertyTest {
    private record Case(Map<String, TopicShape> topics, SortedMap<String, Subscriber> members) {}

    private static Case randomCase(Gen gen, boolean homogeneous) {
        Map<String, TopicShape> topics = new TreeMap<>();
        int topicCount = gen.ints(1, 4);
        for (int t = 0; t < topicCount; t++) {
            topics.put("t" + t, new TopicShape(UUID.randomUUID(), gen.ints(1, 12)));
        }
        List<String> names = new ArrayList<>(topics.keySet());
        SortedMap<String, Subscriber> members = new TreeMap<>();
        int memberCount = gen.ints(1, 7);
        Set<String> common = subset(gen, names);
        for (int m = 0; m < memberCount; m++) {
            Set<String> subscribed = homogeneous ? common : subset(gen, names);
            members.put("m" + m, new Subscriber(subscribed, MemberAssignment.EMPTY, gen.bool() ? "i" + m : null));
        }
        return new Case(topics, members);
    }

    private static Set<String> subset(Gen gen, List<String> names) {
        Set<String> out = new HashSet<>();
        names.forEach(n -> {
            if (gen.bool()) {
                out.add(n);
            }
        });
        if (out.isEmpty()) {
            out.add(gen.oneOf(names));
        }
        return out;
    }

    /** Every partition of a subscribed topic is assigned exactly once, to a member subscribed to that topic. */
    private static void assertValid(Case c, Map<String, MemberAssignment> assignment) {
        assertThat(assignment.keySet()).isEqualTo(c.members().keySet());
        Map<UUID, String> names = new HashMap<>();
        c.topics().forEach((n, shape) -> names.put(shape.id(), n));
        Map<String, Integer> owners = new HashMap<>();
        assignment.forEach((member, a) -> a.partitions().forEach((topic, partitions) -> {
            String name = names.get(topic);
            assertThat(c.members().get(member).topics())
                    .as("%s subscribes to %s", member, name)
                    .contains(name);
            for (int p : partitions) {
                assertThat(p).isBetween(0, c.topics().get(name).partitions() - 1);
                owners.merge(name + "-" + p, 1, Integer::sum);
            }
        }));
        c.topics().forEach((name, shape) -> {
            boolean subscribed =
                    c.members().values().stream().anyMatch(s -> s.topics().contains(name));
            for (int p = 0; p < shape.partitions(); p++) {
                assertThat(owners.getOrDefault(name + "-" + p, 0))
                        .as("owners of %s-%d", name, p)
                        .isEqualTo(subscribed ? 1 : 0);
            }
        });
    }

    @Test
    void everyAssignorAssignsEverySubscribedPartitionExactlyOnceToASubscriber() {
        Properties.forAll(300, gen -> {
            Case c = randomCase(gen, gen.bool());
            for (ServerAssignor assignor : List.of(new UniformAssignor(), new RangeAssignor())) {
                assertValid(c, assignor.assign(c.members(), c.topics()));
            }
        });
    }

    @Test
    void uniformIsBalancedToOnePartitionWhenEveryMemberSubscribesAlike() {
        Properties.forAll(300, gen -> {
            Case c = randomCase(gen, true);
            Map<String, MemberAssignment> a = new UniformAssignor().assign(c.members(), c.topics());
            int max = a.values().stream().mapToInt(MemberAssignment::size).max().orElseThrow();
            int min = a.values().stream().mapToInt(MemberAssignment::size).min().orElseThrow();
            assertThat(max - min).isLessThanOrEqualTo(1);
        });
    }

    @Test
    void uniformMovesOnlyTheNewcomersShareWhenAMemberJoins() {
        Properties.forAll(300, gen -> {
            Case c = randomCase(gen, true);
            UniformAssignor uniform = new UniformAssignor();
            Map<String, MemberAssignment> before = uniform.assign(c.members(), c.topics());
            SortedMap<String, Subscriber> grown = new TreeMap<>();
            c.members().forEach((m, s) -> grown.put(m, new Subscriber(s.topics(), before.get(m), s.instanceId())));
            Set<String> topics = c.members().values().iterator().next().topics();
            grown.put("newcomer", new Subscriber(topics, MemberAssignment.EMPTY, null));
            Map<String, MemberAssignment> after = uniform.assign(grown, c.topics());
            assertValid(new Case(c.topics(), grown), after);
            int total =
                    before.values().stream().mapToInt(MemberAssignment::size).sum();
            int moved = 0;
            for (String m : c.members().keySet()) {
                moved += before.get(m).minus(after.get(m)).size();
            }
            int share = (int) Math.ceil((double) total / grown.size());
            assertThat(moved).isLessThanOrEqualTo(share);
            assertThat(after.get("newcomer").size()).isEqualTo(moved);
            int max = after.values().stream()
                    .mapToInt(MemberAssignment::size)
                    .max()
                    .orElseThrow();
            int min = after.values().stream()
                    .mapToInt(MemberAssignment::size)
                    .min()
                    .orElseThrow();
            assertThat(max - min).as("balanced after the join").isLessThanOrEqualTo(1);
        });
    }

    @Test
    void uniformKeepsAnAssignmentThatIsAlreadyBalanced() {
        Properties.forAll(200, gen -> {
            Case c = randomCase(gen, gen.bool());
            UniformAssignor uniform = new UniformAssignor();
            Map<String, MemberAssignment> first = uniform.assign(c.members(), c.topics());
            SortedMap<String, Subscriber> again = new TreeMap<>();
            c.members().forEach((m, s) -> again.put(m, new Subscriber(s.topics(), first.get(m), s.instanceId())));
            assertThat(uniform.assign(again, c.topics())).isEqualTo(first);
        });
    }

    @Test
    void rangeGivesCoPartitionedTopicsTheSamePartitionNumbersPerMember() {
        Properties.forAll(300, gen -> {
            int partitions = gen.ints(1, 12);
            Map<String, TopicShape> topics = Map.of(
                    "orders", new TopicShape(UUID.randomUUID(), partitions),
                    "payments", new TopicShape(UUID.randomUUID(), partitions));
            SortedMap<String, Subscriber> members = new TreeMap<>();
            int count = gen.ints(1, 6);
            for (int m = 0; m < count; m++) {
                members.put(
                        UUID.randomUUID().toString(),
                        new Subscriber(Set.of("orders", "payments"), MemberAssignment.EMPTY, null));
            }
            Map<String, MemberAssignment> a = new RangeAssignor().assign(members, topics);
            a.values()
                    .forEach(m -> assertThat(
                                    m.partitions().get(topics.get("orders").id()))
                            .isEqualTo(m.partitions().get(topics.get("payments").id())));
            int max = a.values().stream().mapToInt(MemberAssignment::size).max().orElseThrow();
            int min = a.values().stream().mapToInt(MemberAssignment::size).min().orElseThrow();
            assertThat(max - min).isLessThanOrEqualTo(2);
        });
    }
}
