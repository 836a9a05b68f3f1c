package io.orderflow.broker.server;

import static org.assertj.core.api.Assertions.assertThat;

import io.orderflow.frames.WireClient;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.message.JoinGroupRequestData;
import org.apache.kafka.common.message.JoinGroupRequestData.JoinGroupRequestProtocol;
import org.apache.kafka.common.message.JoinGroupRequestData.JoinGroupRequestProtocolCollection;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.requests.JoinGroupRequest;
import org.apache.kafka.common.requests.JoinGroupResponse;
import org.apache.kafka.common.requests.RequestHeader;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code group.max.size} bounds a group's members and the ids handed out to new members that never rejoin with them
 * (KIP-394's pending members), and {@code group.max.count} the groups a JoinGroup may create: both answered with
 * GROUP_MAX_SIZE_REACHED, while a consumer group of its own keeps working beside them.
 */
class GroupLimitsTest {
    private static final short JOIN_VERSION = 9;

    @TempDir
    Path dataDir;

    private TestBroker broker;

    @AfterEach
    void stop() {
        if (broker != null) {
            broker.close();
        }
    }

    private static JoinGroupRequest join(String group) {
        JoinGroupRequestProtocolCollection protocols = new JoinGroupRequestProtocolCollection();
        protocols.add(new JoinGroupRequestProtocol().setName("range").setMetadata(new byte[0]));
        return new JoinGroupRequest.Builder(new JoinGroupRequestData()
                        .setGroupId(group)
                        .setMemberId(JoinGroupRequest.UNKNOWN_MEMBER_ID)
                        .setProtocolType("consumer")
                        .setSessionTimeoutMs(30_000)
                        .setRebalanceTimeoutMs(30_000)
                        .setProtocols(protocols))
                .build(JOIN_VERSION);
    }

    /** Sends {@code requests} JoinGroups, a window of them in flight at a time; counts the answers by error. */
    private static Map<Errors, Integer> joinMany(WireClient client, List<JoinGroupRequest> requests)
            throws IOException {
        Map<Errors, Integer> answers = new TreeMap<>();
        List<RequestHeader> inFlight = new ArrayList<>();
        int next = 0;
        int correlationId = 0;
        while (next < requests.size() || !inFlight.isEmpty()) {
            while (next < requests.size() && inFlight.size() < 100) {
                inFlight.add(client.send(requests.get(next++), ++correlationId));
            }
            JoinGroupResponse answer = (JoinGroupResponse) client.receive(inFlight.removeFirst());
            answers.merge(answer.error(), 1, Integer::sum);
        }
        return answers;
    }

    @Test
    void aHundredThousandJoinsWithFreshMemberIdsHoldAtMostGroupMaxSizePendingIds() throws Exception {
        broker = TestBroker.start(dataDir, Map.of("group.max.size", "1000", "group.initial.rebalance.delay.ms", "0"));
        JoinGroupRequest request = join("flooded");
        try (WireClient client = WireClient.connect(broker.broker().port())) {
            Map<Errors, Integer> answers = joinMany(client, java.util.Collections.nCopies(100_000, request));

            assertThat(answers)
                    .containsExactlyInAnyOrderEntriesOf(
                            Map.of(Errors.MEMBER_ID_REQUIRED, 1000, Errors.GROUP_MAX_SIZE_REACHED, 99_000));
        }
        assertThat(aConsumerGroupStillWorks("beside-the-flood")).isEqualTo("v");
    }

    @Test
    void theBrokerHoldsAtMostTenThousandPendingIdsAcrossItsGroups() throws Exception {
        broker = TestBroker.start(dataDir, Map.of("group.max.size", "1000", "group.initial.rebalance.delay.ms", "0"));
        List<JoinGroupRequest> requests = new ArrayList<>();
        for (int group = 0; group < 12; group++) {
            requests.addAll(java.util.Collections.nCopies(1000, join("group-" + group)));
        }
        try (WireClient client = WireClient.connect(broker.broker().port())) {
            Map<Errors, Integer> answers = joinMany(client, requests);

            assertThat(answers)
                    .containsExactlyInAnyOrderEntriesOf(
                            Map.of(Errors.MEMBER_ID_REQUIRED, 10_000, Errors.GROUP_MAX_SIZE_REACHED, 2_000));
        }
    }

    @Test
    void aJoinGroupThatWouldCreateAGroupBeyondGroupMaxCountIsRefused() throws Exception {
        broker = TestBroker.start(dataDir, Map.of("group.max.count", "20", "group.initial.rebalance.delay.ms", "0"));
        List<JoinGroupRequest> requests = new ArrayList<>();
        for (int i = 0; i < 25; i++) {
            requests.add(join("group-" + i));
        }
        try (WireClient client = WireClient.connect(broker.broker().port())) {
            Map<Errors, Integer> answers = joinMany(client, requests);

            assertThat(answers)
                    .containsExactlyInAnyOrderEntriesOf(
                            Map.of(Errors.MEMBER_ID_REQUIRED, 20, Errors.GROUP_MAX_SIZE_REACHED, 5));
            // The twenty groups there are still take their members.
            JoinGroupResponse again = (JoinGroupResponse) client.receive(client.send(join("group-0"), 1_000));
            assertThat(again.error()).isEqualTo(Errors.MEMBER_ID_REQUIRED);
        }
    }

    private String aConsumerGroupStillWorks(String topic) throws Exception {
        try (KafkaProducer<String, String> producer = broker.producer()) {
            producer.send(new ProducerRecord<>(topic, "k", "v")).get();
        }
        java.util.Properties settings = new java.util.Properties();
        settings.put("bootstrap.servers", broker.bootstrap());
        settings.put("group.id", "honest");
        settings.put("auto.offset.reset", "earliest");
        try (KafkaConsumer<String, String> consumer = new KafkaConsumer<>(
                settings,
                new org.apache.kafka.common.serialization.StringDeserializer(),
                new org.apache.kafka.common.serialization.StringDeserializer())) {
            consumer.subscribe(List.of(topic));
            long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
            while (System.nanoTime() < deadline) {
                for (var record : consumer.poll(Duration.ofMillis(500))) {
                    return record.value();
                }
            }
        }
        return null;
    }
}
