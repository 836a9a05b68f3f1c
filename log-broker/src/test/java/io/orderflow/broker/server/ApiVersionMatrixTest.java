package io.orderflow.broker.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.fail;

import io.orderflow.frames.WireClient;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.message.ApiVersionsResponseData.ApiVersion;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.requests.AbstractRequest;
import org.apache.kafka.common.requests.AbstractResponse;
import org.apache.kafka.common.requests.ApiVersionsRequest;
import org.apache.kafka.common.requests.ApiVersionsResponse;
import org.apache.kafka.common.requests.RequestHeader;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestFactory;
import org.junit.jupiter.api.io.TempDir;

/**
 * Every (API, version) pair the broker advertises, asked of a real broker over TCP. The pairs come from the
 * broker's own ApiVersions answer, so an API or version registered later is covered here without a change.
 *
 * <p>Each pair is one dynamic test on a new connection: the request goes out at that version, the answer must
 * come back at that version (its correlation id, the header and body of that version, and nothing left over), the
 * answer must mean what {@link VersionedExchanges} expects of it, and the connection must still answer
 * ApiVersions afterwards. A response field set for a version that does not have it, the class of bug that once
 * closed every librdkafka and KafkaJS connection, fails the pair it breaks.
 */
class ApiVersionMatrixTest {
    @TempDir
    static Path dataDir;

    private static TestBroker broker;
    private static TestBroker secureBroker;
    private static VersionedExchanges plaintext;
    private static VersionedExchanges saslSsl;
    private static final Map<ApiKeys, WireClient> saslSslConnections = new java.util.EnumMap<>(ApiKeys.class);

    @BeforeAll
    static void start() throws Exception {
        Map<String, String> settings = new java.util.HashMap<>(SecurityExchanges.SETTINGS);
        settings.put("group.initial.rebalance.delay.ms", "0");
        broker = prepared(TestBroker.start(dataDir.resolve("plaintext"), settings));
        secureBroker = prepared(TestBroker.start(
                dataDir.resolve("secure"), SecureListenersTest.secureSettings(TestCertificates.get(), settings)));
        plaintext = new VersionedExchanges(broker, broker.broker().port("PLAINTEXT"));
        saslSsl = new VersionedExchanges(secureBroker, secureBroker.broker().port("SASL_SSL"));
    }

    /** The topic with its records and the group with its committed offset that the exchanges read. */
    private static TestBroker prepared(TestBroker broker) throws Exception {
        broker.createTopic(VersionedExchanges.TOPIC, 1, Map.of());
        try (KafkaProducer<String, String> producer = broker.producer()) {
            for (int i = 0; i < VersionedExchanges.RECORDS; i++) {
                producer.send(new ProducerRecord<>(VersionedExchanges.TOPIC, 0, "k" + i, "v" + i));
            }
            producer.flush();
        }
        try (Admin admin = broker.admin()) {
            admin.alterConsumerGroupOffsets(
                            VersionedExchanges.COMMITTED_GROUP,
                            Map.of(
                                    new TopicPartition(VersionedExchanges.TOPIC, 0),
                                    new OffsetAndMetadata(VersionedExchanges.COMMITTED_OFFSET, "matrix")))
                    .all()
                    .get(30, TimeUnit.SECONDS);
        }
        return broker;
    }

    @AfterAll
    static void stop() throws IOException {
        for (WireClient client : saslSslConnections.values()) {
            client.close();
        }
        for (TestBroker b : new TestBroker[] {broker, secureBroker}) {
            if (b != null) {
                b.close();
            }
        }
    }

    @TestFactory
    Stream<DynamicTest> everyAdvertisedVersionIsAnsweredAtThatVersion() throws IOException {
        List<DynamicTest> tests = new ArrayList<>();
        for (ApiVersion advertised : advertised()) {
            ApiKeys api = ApiKeys.forId(advertised.apiKey());
            for (short v = advertised.minVersion(); v <= advertised.maxVersion(); v++) {
                short version = v;
                tests.add(DynamicTest.dynamicTest(
                        api.name + " v" + version,
                        () -> exchange(plaintextConnection(), plaintext, api, version, true)));
            }
        }
        return tests.stream();
    }

    /**
     * The same pairs on the SASL_SSL listener, each on a new TLS connection logged in with SCRAM-SHA-512 as a super
     * user; SaslHandshake and SaslAuthenticate themselves are {@code SaslWireTest}'s, at every version.
     */
    @TestFactory
    Stream<DynamicTest> everyAdvertisedVersionIsAnsweredAtThatVersionOverSaslSsl() throws IOException {
        List<DynamicTest> tests = new ArrayList<>();
        for (ApiVersion advertised : advertised()) {
            ApiKeys api = ApiKeys.forId(advertised.apiKey());
            if (api == ApiKeys.SASL_HANDSHAKE || api == ApiKeys.SASL_AUTHENTICATE) {
                continue;
            }
            for (short v = advertised.minVersion(); v <= advertised.maxVersion(); v++) {
                short version = v;
                tests.add(DynamicTest.dynamicTest(
                        "SASL_SSL " + api.name + " v" + version,
                        () -> exchange(saslSslConnection(api), saslSsl, api, version, false)));
            }
        }
        return tests.stream();
    }

    private static WireClient plaintextConnection() throws IOException {
        return WireClient.connect(broker.broker().port("PLAINTEXT"));
    }

    /**
     * One logged-in TLS connection per API, kept for its versions (a TLS handshake and a SCRAM login per pair would
     * cost the build more than the pairs themselves); {@link #exchange} leaves it open.
     */
    private static WireClient saslSslConnection(ApiKeys api) throws Exception {
        WireClient open = saslSslConnections.get(api);
        if (open == null) {
            open = loggedIn();
            saslSslConnections.put(api, open);
        }
        return open;
    }

    private static WireClient loggedIn() throws Exception {
        WireClient client = WireClient.connectTls(
                secureBroker.broker().port("SASL_SSL"), TestCertificates.get().clientSockets());
        var login = new ScramWireClient(client)
                .login(
                        io.orderflow.broker.security.ScramMechanism.SCRAM_SHA_512,
                        "admin",
                        SecureListenersTest.ADMIN_PASSWORD,
                        (short) 2);
        assertThat(login.error()).isEqualTo(Errors.NONE);
        return client;
    }

    @Test
    void everyAdvertisedApiHasARequestWhoseAnswerIsChecked() throws IOException {
        assertThat(advertised())
                .allSatisfy(a -> assertThat(plaintext.knows(ApiKeys.forId(a.apiKey())))
                        .as("a request with a checked answer for %s", ApiKeys.forId(a.apiKey()))
                        .isTrue());
        assertThat(advertised())
                .allSatisfy(a ->
                        assertThat(saslSsl.knows(ApiKeys.forId(a.apiKey()))).isTrue());
    }

    private static List<ApiVersion> advertised() throws IOException {
        try (WireClient client = WireClient.connect(broker.broker().port())) {
            RequestHeader header = client.send(new ApiVersionsRequest.Builder().build((short) 3), 1);
            ApiVersionsResponse response = (ApiVersionsResponse) client.receive(header);
            assertThat(Errors.forCode(response.data().errorCode())).isEqualTo(Errors.NONE);
            return List.copyOf(response.data().apiKeys());
        }
    }

    /** The pair's exchanges on {@code client}, which is closed afterwards when {@code closeAfter}. */
    private static void exchange(
            WireClient client, VersionedExchanges exchanges, ApiKeys api, short version, boolean closeAfter)
            throws Exception {
        try {
            int correlationId = 100;
            for (VersionedExchanges.Exchange exchange : exchanges.at(api, version)) {
                AbstractRequest request = exchange.request().get();
                RequestHeader header = client.send(request, ++correlationId);
                AbstractResponse response = receiveWhole(client, header);
                assertThat(response.errorCounts())
                        .as("%s v%d answers without UNKNOWN_SERVER_ERROR", request.apiKey(), request.version())
                        .doesNotContainKey(Errors.UNKNOWN_SERVER_ERROR);
                exchange.check().accept(response);
            }
            RequestHeader after = client.send(new ApiVersionsRequest.Builder().build((short) 3), ++correlationId);
            assertThat(receiveWhole(client, after)).isInstanceOf(ApiVersionsResponse.class);
        } finally {
            if (closeAfter) {
                client.close();
            }
        }
    }

    /** The answer to {@code header}, which must fill its frame exactly at the request's version. */
    private static AbstractResponse receiveWhole(WireClient client, RequestHeader header) throws IOException {
        ByteBuffer frame;
        try {
            frame = client.receiveFrame();
        } catch (IOException e) {
            return fail(
                    "%s v%d: the broker closed the connection instead of answering (%s)",
                    header.apiKey(), header.apiVersion(), e);
        }
        assertThat(frame.getInt(0))
                .as("correlation id of the answer to %s v%d", header.apiKey(), header.apiVersion())
                .isEqualTo(header.correlationId());
        AbstractResponse response = AbstractResponse.parseResponse(frame, header);
        assertThat(frame.remaining())
                .as("bytes left after reading %s v%d's answer at that version", header.apiKey(), header.apiVersion())
                .isZero();
        return response;
    }
}
