package io.orderflow.broker.server;

import static org.assertj.core.api.Assertions.assertThat;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import io.orderflow.broker.protocol.RequestVariants;
import io.orderflow.broker.protocol.RequestVariants.Variant;
import io.orderflow.frames.WireClient;
import java.io.EOFException;
import java.io.IOException;
import java.net.SocketException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.apache.kafka.common.message.ApiVersionsResponseData.ApiVersion;
import org.apache.kafka.common.message.ProduceRequestData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.protocol.MessageUtil;
import org.apache.kafka.common.requests.AbstractRequest;
import org.apache.kafka.common.requests.AbstractResponse;
import org.apache.kafka.common.requests.ApiVersionsRequest;
import org.apache.kafka.common.requests.ApiVersionsResponse;
import org.apache.kafka.common.requests.RequestHeader;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestFactory;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.io.TempDir;
import org.slf4j.LoggerFactory;

/**
 * Every API key kafka-clients knows, advertised or not, at every version its codec can write (unstable ones too),
 * each with three bodies ({@link RequestVariants}: defaults, every nullable field null, every collection empty),
 * sent to one real broker over TCP; each Produce body once more with {@code acks=-1}, and a bare v0 header for
 * the keys the codec keeps only by name (LeaderAndIsr and the other removed ones). {@link ApiVersionMatrixTest}
 * checks what the advertised answers mean; this class checks that nothing a client can put on the wire makes the
 * broker fail.
 *
 * <p><b>The rule</b>, Apache Kafka's (its {@code SocketServer} checks every request header against the enabled
 * APIs before anything else and closes the connection of a request outside them, except ApiVersions, which it
 * answers at any version):
 *
 * <ul>
 *   <li>ApiVersions, at any version: answered (a version we do not know at v0 with {@code UNSUPPORTED_VERSION} and
 *       our ranges, {@code BadRequestsTest}).
 *   <li>Any other API key or version the broker does not advertise: the connection is closed, without an answer,
 *       with one WARN line and no stack trace. There is no error answer to build, so no request body, however
 *       empty or null, can make building one fail.
 *   <li>An advertised version whose body the codec refuses to read (DescribeAcls whose filters are all
 *       {@code UNKNOWN}): closed the same way, as a malformed request.
 *   <li>Any other advertised request: a well-formed answer at its version, with its correlation id, filling its
 *       frame exactly and never carrying {@code UNKNOWN_SERVER_ERROR}; a Produce with {@code acks=0} gets none.
 *       The connection stays open.
 * </ul>
 *
 * In every case the broker logs nothing at ERROR and no stack trace, counts no failure of its own
 * ({@code orderflow_broker_request_failures_total} stays absent from {@code /metrics}), and answers ApiVersions
 * afterwards: on the same connection when it stayed open, on a new one when it was closed.
 *
 * <p>One broker for the class and one connection reused until the broker closes it, so the ~800 requests take a
 * few seconds.
 */
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class EveryApiKeyMatrixTest {
    private static final int CORRELATION_ID = 1000;
    private static final int PROBE_CORRELATION_ID = 1001;

    @TempDir
    static Path dataDir;

    private static TestBroker broker;
    private static Map<ApiKeys, ApiVersion> advertised;
    private static WireClient connection;
    private static final ListAppender<ILoggingEvent> logged = new ListAppender<>();
    private static final Logger brokerLog = (Logger) LoggerFactory.getLogger("io.orderflow.broker");

    @BeforeAll
    static void start() throws IOException {
        // The broker's WARN lines (one per closed connection) are read here instead of flooding the build's output.
        logged.start();
        brokerLog.addAppender(logged);
        brokerLog.setAdditive(false);
        broker = TestBroker.start(dataDir, Map.of("metrics.port", "0"));
        connection = WireClient.connect(broker.broker().port());
        RequestHeader header = connection.send(new ApiVersionsRequest.Builder().build((short) 3), 1);
        ApiVersionsResponse response = (ApiVersionsResponse) connection.receive(header);
        advertised = new EnumMap<>(ApiKeys.class);
        response.data().apiKeys().forEach(a -> advertised.put(ApiKeys.forId(a.apiKey()), a));
    }

    @AfterAll
    static void stop() throws IOException {
        try {
            if (connection != null) {
                connection.close();
            }
            if (broker != null) {
                broker.close();
            }
        } finally {
            brokerLog.detachAppender(logged);
            brokerLog.setAdditive(true);
        }
    }

    @Order(1)
    @TestFactory
    Stream<DynamicTest> everyApiKeyAtEveryVersionIsAnsweredOrClosedWithoutAFailure() {
        assertThat(advertised)
                .isNotEmpty()
                .doesNotContainKey(ApiKeys.ALTER_PARTITION_REASSIGNMENTS); // both outcomes are met
        return Arrays.stream(ApiKeys.values())
                .map(api -> DynamicTest.dynamicTest(
                        api.name,
                        () -> assertThat(problems(api))
                                .as("what went wrong for %s", api.name)
                                .isEmpty()));
    }

    /** What went wrong with each version and body of {@code api}; empty when the broker followed the rule. */
    private static List<String> problems(ApiKeys api) throws IOException {
        List<String> problems = new ArrayList<>();
        List<Variant> variants = RequestVariants.of(api, CORRELATION_ID);
        if (variants.isEmpty()) {
            // A key kafka-clients keeps only by name (LeaderAndIsr and the other removed ones): a bare v0 header.
            byte[] frame = ByteBuffer.allocate(10)
                    .putShort(api.id)
                    .putShort((short) 0)
                    .putInt(CORRELATION_ID)
                    .putShort((short) -1)
                    .array();
            problems.addAll(exchange(api.name + " v0 header only", frame, null, Outcome.CLOSED));
        }
        byte[] previous = null;
        for (Variant variant : variants) {
            if (previous != null && Arrays.equals(previous, variant.frame())) {
                continue; // a shape that is the same bytes as the one before (no nullable field, say)
            }
            previous = variant.frame();
            problems.addAll(exchange(variant.toString(), variant.frame(), variant.header(), expected(variant)));
            if (variant.body() instanceof ProduceRequestData) {
                // The default acks=0 has no answer; the same body with acks=-1 must have one.
                Variant acked = variant.with(ProduceRequestData.class, p -> p.setAcks((short) -1));
                problems.addAll(exchange(variant + " acks=-1", acked.frame(), acked.header(), expected(acked)));
            }
        }
        return problems;
    }

    @Order(2)
    @Test
    void theBrokerCountedNoFailureOfItsOwnAndLoggedNoError() throws Exception {
        HttpResponse<String> metrics = HttpClient.newHttpClient()
                .send(
                        HttpRequest.newBuilder(URI.create(
                                        "http://127.0.0.1:" + broker.broker().metricsPort() + "/metrics"))
                                .build(),
                        HttpResponse.BodyHandlers.ofString());
        assertThat(metrics.body())
                .contains("orderflow_broker_request_seconds_count")
                .doesNotContain("orderflow_broker_request_failures_total{");
        synchronized (logged) {
            assertThat(logged.list)
                    .as("what the broker logged")
                    .isNotEmpty() // one WARN line per closed connection
                    .noneMatch(e -> e.getLevel().isGreaterOrEqual(Level.ERROR) || e.getThrowableProxy() != null);
        }
    }

    /**
     * What is wrong with the broker's handling of the request {@code frame} (named {@code variant}, sent with
     * {@code header}); empty when it came out as {@code expected} and followed the rule.
     */
    private static List<String> exchange(String variant, byte[] frame, RequestHeader header, Outcome expected)
            throws IOException {
        List<String> problems = new ArrayList<>();
        int loggedBefore = loggedCount();
        byte[] probe = WireClient.frame(
                new ApiVersionsRequest.Builder().build((short) 3),
                new RequestHeader(ApiKeys.API_VERSIONS, (short) 3, "probe", PROBE_CORRELATION_ID));
        // The request and an ApiVersions behind it in one write: a request that gets no answer (acks=0) shows as
        // the probe's answer coming first, one that closes the connection as the end of the stream.
        connection.sendRaw(concat(WireClient.withSize(frame), WireClient.withSize(probe)));
        ByteBuffer first = receiveOrNull();
        Outcome actual;
        boolean stillOpen = true;
        if (first == null) {
            actual = Outcome.CLOSED;
            stillOpen = false;
        } else if (first.getInt(0) == PROBE_CORRELATION_ID) {
            actual = Outcome.NO_ANSWER;
            problems.addAll(checkProbe(variant, first));
        } else {
            actual = Outcome.ANSWERED;
            problems.addAll(checkAnswer(variant, header, first));
            ByteBuffer second = receiveOrNull();
            if (second == null) {
                problems.add(variant + ": answered, then the connection was closed before ApiVersions");
                stillOpen = false;
            } else {
                problems.addAll(checkProbe(variant, second));
            }
        }
        if (actual != expected) {
            problems.add(variant + ": expected " + expected + ", got " + actual);
        }
        if (!stillOpen) {
            reconnectAndProbe(variant, problems);
        }
        List<ILoggingEvent> lines = loggedSince(loggedBefore);
        for (ILoggingEvent line : lines) {
            if (line.getLevel().isGreaterOrEqual(Level.ERROR) || line.getThrowableProxy() != null) {
                problems.add(variant + ": the broker logged " + line.getLevel() + " " + line.getFormattedMessage()
                        + " " + line.getKeyValuePairs()
                        + (line.getThrowableProxy() == null
                                ? ""
                                : " with " + line.getThrowableProxy().getClassName() + ": "
                                        + line.getThrowableProxy().getMessage()));
            }
        }
        if (actual == Outcome.CLOSED && lines.size() != 1) {
            problems.add(variant + ": " + lines.size() + " lines logged for one closed connection, not one");
        }
        return problems;
    }

    private enum Outcome {
        ANSWERED,
        NO_ANSWER,
        CLOSED
    }

    private static Outcome expected(Variant variant) {
        ApiVersion range = advertised.get(variant.api());
        boolean served = variant.api() == ApiKeys.API_VERSIONS
                || (range != null
                        && variant.version() >= range.minVersion()
                        && variant.version() <= range.maxVersion());
        if (!served || !readable(variant)) {
            return Outcome.CLOSED;
        }
        if (variant.body() instanceof ProduceRequestData produce && produce.acks() == 0) {
            return Outcome.NO_ANSWER;
        }
        return Outcome.ANSWERED;
    }

    /** Whether kafka-clients' request classes accept the body, as the broker's decoder asks them. */
    private static boolean readable(Variant variant) {
        try {
            AbstractRequest.parseRequest(
                    variant.api(),
                    variant.version(),
                    MessageUtil.toByteBufferAccessor(variant.body(), variant.version()));
            return true;
        } catch (RuntimeException e) {
            return false;
        }
    }

    private static List<String> checkAnswer(String variant, RequestHeader header, ByteBuffer frame) {
        if (frame.getInt(0) != CORRELATION_ID) {
            return List.of(variant + ": answered with correlation id " + frame.getInt(0));
        }
        if (header == null) {
            return List.of(variant + ": answered");
        }
        AbstractResponse response;
        try {
            response = AbstractResponse.parseResponse(frame, header);
        } catch (RuntimeException e) {
            return List.of(variant + ": the answer cannot be read at v" + header.apiVersion() + ": " + e);
        }
        List<String> problems = new ArrayList<>();
        if (frame.hasRemaining()) {
            problems.add(variant + ": " + frame.remaining() + " bytes left after the answer");
        }
        if (response.errorCounts().containsKey(Errors.UNKNOWN_SERVER_ERROR)) {
            problems.add(variant + ": answered UNKNOWN_SERVER_ERROR " + response.data());
        }
        return problems;
    }

    private static List<String> checkProbe(String variant, ByteBuffer frame) {
        if (frame.getInt(0) != PROBE_CORRELATION_ID) {
            return List.of(variant + ": ApiVersions afterwards answered with correlation id " + frame.getInt(0));
        }
        RequestHeader header = new RequestHeader(ApiKeys.API_VERSIONS, (short) 3, "probe", PROBE_CORRELATION_ID);
        ApiVersionsResponse response = (ApiVersionsResponse) AbstractResponse.parseResponse(frame, header);
        return response.data().errorCode() == Errors.NONE.code()
                ? List.of()
                : List.of(variant + ": ApiVersions afterwards answered "
                        + Errors.forCode(response.data().errorCode()));
    }

    /** A closed connection is replaced by a new one, which must answer ApiVersions. */
    private static void reconnectAndProbe(String variant, List<String> problems) throws IOException {
        connection.close();
        connection = WireClient.connect(broker.broker().port());
        RequestHeader header = connection.send(new ApiVersionsRequest.Builder().build((short) 3), 1);
        ApiVersionsResponse response = (ApiVersionsResponse) connection.receive(header);
        if (response.data().errorCode() != Errors.NONE.code()) {
            problems.add(variant + ": ApiVersions on a new connection answered "
                    + Errors.forCode(response.data().errorCode()));
        }
    }

    /** The next frame, or null when the broker closed the connection (end of stream or reset). */
    private static ByteBuffer receiveOrNull() throws IOException {
        try {
            return connection.receiveFrame();
        } catch (EOFException | SocketException e) {
            return null;
        }
    }

    private static int loggedCount() {
        synchronized (logged) {
            return logged.list.size();
        }
    }

    private static List<ILoggingEvent> loggedSince(int index) {
        synchronized (logged) {
            return List.copyOf(logged.list.subList(index, logged.list.size()));
        }
    }

    private static byte[] concat(byte[] a, byte[] b) {
        byte[] both = Arrays.copyOf(a, a.length + b.length);
        System.arraycopy(b, 0, both, a.length, b.length);
        return both;
    }
}
