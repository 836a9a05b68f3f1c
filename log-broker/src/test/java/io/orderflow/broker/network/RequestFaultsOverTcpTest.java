package io.orderflow.broker.network;

import static org.assertj.core.api.Assertions.assertThat;

import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import io.orderflow.broker.handler.ApiVersionsHandler;
import io.orderflow.broker.handler.BrokerNode;
import io.orderflow.broker.handler.RequestDispatcher;
import io.orderflow.broker.handler.RequestFaults;
import io.orderflow.broker.log.ManualClock;
import io.orderflow.frames.WireClient;
import java.net.InetSocketAddress;
import java.util.List;
import java.util.concurrent.atomic.AtomicReference;
import org.apache.kafka.common.IsolationLevel;
import org.apache.kafka.common.errors.PolicyViolationException;
import org.apache.kafka.common.message.CreateTopicsRequestData;
import org.apache.kafka.common.message.ListOffsetsRequestData;
import org.apache.kafka.common.message.ListOffsetsResponseData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.requests.ApiVersionsRequest;
import org.apache.kafka.common.requests.ApiVersionsResponse;
import org.apache.kafka.common.requests.CreateTopicsRequest;
import org.apache.kafka.common.requests.CreateTopicsResponse;
import org.apache.kafka.common.requests.ListOffsetsRequest;
import org.apache.kafka.common.requests.ListOffsetsResponse;
import org.apache.kafka.common.requests.RequestHeader;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.slf4j.LoggerFactory;

/**
 * Handlers with bugs behind the real socket server. One has the bug librdkafka met (a leader epoch set in ListOffsets
 * answers of versions that have none): clients that meet it get {@code UNKNOWN_SERVER_ERROR} at their version and
 * keep their connections, and a client reconnecting over and over costs one logged stack trace. The other throws
 * what no error code was made for, or a failure it names: the first is a counted bug, the second just its code.
 */
class RequestFaultsOverTcpTest {
    private final ManualClock clock = new ManualClock(0);
    private final RequestFaults faults = new RequestFaults(clock);
    private final ListAppender<ILoggingEvent> logged = new ListAppender<>();
    private final Logger faultLog = (Logger) LoggerFactory.getLogger(RequestFaults.class);
    private SocketServer server;

    @BeforeEach
    void start() throws Exception {
        logged.start();
        faultLog.addAppender(logged);
        AtomicReference<RequestDispatcher> self = new AtomicReference<>();
        RequestDispatcher dispatcher = RequestDispatcher.builder()
                .register(ApiKeys.API_VERSIONS, 4, new ApiVersionsHandler(self::get, new BrokerNode(1, "h", 1, "c")))
                .register(ApiKeys.LIST_OFFSETS, 7, (client, request) -> {
                    var partition = new ListOffsetsResponseData.ListOffsetsPartitionResponse()
                            .setPartitionIndex(0)
                            .setOffset(42)
                            .setLeaderEpoch(0); // exists only from v4 on
                    return new ListOffsetsResponse(new ListOffsetsResponseData()
                            .setTopics(List.of(new ListOffsetsResponseData.ListOffsetsTopicResponse()
                                    .setName("t")
                                    .setPartitions(List.of(partition)))));
                })
                .register(ApiKeys.CREATE_TOPICS, 7, (client, request) -> {
                    String name = ((CreateTopicsRequest) request)
                            .data()
                            .topics()
                            .iterator()
                            .next()
                            .name();
                    if (name.equals("named")) {
                        throw new PolicyViolationException("topic " + name + " is not allowed here");
                    }
                    throw new NullPointerException("a bug in the handler");
                })
                .faults(faults)
                .build();
        self.set(dispatcher);
        server = SocketServer.bind(
                new InetSocketAddress("127.0.0.1", 0), new NetworkLimits(1024 * 1024, 1000), ConnectionThreads.VIRTUAL);
        server.start(dispatcher);
    }

    @AfterEach
    void stop() {
        server.close();
        faultLog.detachAppender(logged);
    }

    private static ListOffsetsRequest latestOffset(short version) {
        return ListOffsetsRequest.Builder.forConsumer(false, IsolationLevel.READ_UNCOMMITTED)
                .setTargetTimes(List.of(new ListOffsetsRequestData.ListOffsetsTopic()
                        .setName("t")
                        .setPartitions(List.of(new ListOffsetsRequestData.ListOffsetsPartition()
                                .setPartitionIndex(0)
                                .setTimestamp(ListOffsetsRequest.LATEST_TIMESTAMP)))))
                .build(version);
    }

    @Test
    void clientsMeetingTheBugGetAnErrorCodeKeepTheirConnectionsAndCostOneStackTrace() throws Exception {
        int connections = 200;
        for (int n = 0; n < connections; n++) {
            try (WireClient client = WireClient.connect(server.port())) {
                RequestHeader header = client.send(latestOffset((short) 2), 1);
                var answer = (ListOffsetsResponse) client.receive(header);
                var partition = answer.topics().getFirst().partitions().getFirst();
                assertThat(Errors.forCode(partition.errorCode())).isEqualTo(Errors.UNKNOWN_SERVER_ERROR);

                RequestHeader next = client.send(new ApiVersionsRequest.Builder().build((short) 3), 2);
                assertThat(client.receive(next)).isInstanceOf(ApiVersionsResponse.class);
            }
        }

        assertThat(faults.counts())
                .containsExactly(java.util.Map.entry(
                        new RequestFaults.Key(ApiKeys.LIST_OFFSETS, (short) 2, RequestFaults.Stage.ENCODE),
                        (long) connections));
        assertThat(logged.list)
                .singleElement()
                .satisfies(e -> assertThat(e.getThrowableProxy()).isNotNull());
    }

    @Test
    void versionsThatHaveTheFieldAreAnsweredNormally() throws Exception {
        try (WireClient client = WireClient.connect(server.port())) {
            RequestHeader header = client.send(latestOffset((short) 4), 1);
            var partition = ((ListOffsetsResponse) client.receive(header))
                    .topics()
                    .getFirst()
                    .partitions()
                    .getFirst();
            assertThat(Errors.forCode(partition.errorCode())).isEqualTo(Errors.NONE);
            assertThat(partition.offset()).isEqualTo(42);
        }
        assertThat(faults.counts()).isEmpty();
    }

    private static CreateTopicsResponse createTopic(WireClient client, String name) throws Exception {
        CreateTopicsRequestData data = new CreateTopicsRequestData().setTimeoutMs(1000);
        data.topics()
                .add(new CreateTopicsRequestData.CreatableTopic()
                        .setName(name)
                        .setNumPartitions(1)
                        .setReplicationFactor((short) 1));
        RequestHeader header = client.send(new CreateTopicsRequest.Builder(data).build((short) 7), 3);
        return (CreateTopicsResponse) client.receive(header);
    }

    @Test
    void aFailureTheHandlerCouldNotNameIsAnsweredWithUnknownServerErrorAndCounted() throws Exception {
        try (WireClient client = WireClient.connect(server.port())) {
            CreateTopicsResponse answer = createTopic(client, "bug");

            assertThat(Errors.forCode(answer.data().topics().find("bug").errorCode()))
                    .isEqualTo(Errors.UNKNOWN_SERVER_ERROR);
            assertThat(createTopic(client, "bug")).isNotNull(); // the connection still answers
        }
        assertThat(faults.counts())
                .containsExactly(java.util.Map.entry(
                        new RequestFaults.Key(ApiKeys.CREATE_TOPICS, (short) 7, RequestFaults.Stage.HANDLE), 2L));
        assertThat(logged.list)
                .singleElement()
                .satisfies(e -> assertThat(e.getThrowableProxy().getClassName())
                        .isEqualTo(NullPointerException.class.getName()));
    }

    @Test
    void aFailureTheHandlerNamedIsAnsweredWithItsOwnCodeAndIsNoBug() throws Exception {
        try (WireClient client = WireClient.connect(server.port())) {
            CreateTopicsResponse answer = createTopic(client, "named");

            assertThat(Errors.forCode(answer.data().topics().find("named").errorCode()))
                    .isEqualTo(Errors.POLICY_VIOLATION);
        }
        assertThat(faults.counts()).isEmpty();
        assertThat(logged.list).isEmpty();
    }
}
