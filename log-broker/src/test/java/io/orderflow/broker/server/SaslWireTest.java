package io.orderflow.broker.server;

import static org.assertj.core.api.Assertions.assertThat;

import io.orderflow.broker.log.ManualClock;
import io.orderflow.broker.security.ScramMechanism;
import io.orderflow.frames.WireClient;
import io.orderflow.property.Gen;
import io.orderflow.property.Properties;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.kafka.common.message.MetadataRequestData;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.requests.MetadataRequest;
import org.apache.kafka.common.requests.MetadataResponse;
import org.apache.kafka.common.requests.RequestHeader;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * SASL on the wire, on a SASL_PLAINTEXT listener: SCRAM logins at every SaslAuthenticate version, what a
 * connection may do before and after, replayed and broken messages, and re-authentication against a clock the test
 * moves. Failed logins are answered without delay here ({@code connection.failed.authentication.delay.ms=0}) so the
 * property can try many; the delay itself is {@code LoginsTest}'s.
 */
class SaslWireTest {
    @TempDir
    static Path dataDir;

    static final ManualClock clock = new ManualClock(1_000_000_000L);
    static Broker broker;

    @BeforeAll
    static void start() {
        Map<String, String> settings = new HashMap<>(Map.of(
                "listeners",
                "SASL_PLAINTEXT://127.0.0.1:0",
                "connections.max.reauth.ms",
                "60000",
                "connection.failed.authentication.delay.ms",
                "0",
                "scram.bootstrap.credentials",
                "SCRAM-SHA-256=[name=alice,password=alice-pw];SCRAM-SHA-512=[name=alice,password=alice-pw];"
                        + "SCRAM-SHA-512=[name=bob,password=bob-pw]"));
        broker = Broker.start(TestBroker.config(dataDir, settings), clock);
    }

    @AfterAll
    static void stop() {
        broker.close();
    }

    private static WireClient connect() throws IOException {
        return WireClient.connect(broker.port("SASL_PLAINTEXT"));
    }

    /** Whether a Metadata request is answered (true) or the connection is closed without an answer (false). */
    private static boolean metadataAnswered(WireClient wire) throws IOException {
        RequestHeader header = wire.send(
                new MetadataRequest.Builder(new MetadataRequestData().setTopics(List.of())).build((short) 12), 900);
        try {
            return wire.receive(header) instanceof MetadataResponse;
        } catch (IOException e) {
            return false;
        }
    }

    @Test
    void scramLogsInAtEverySaslAuthenticateVersionAndTheSessionLifetimeIsToldFromV1() throws Exception {
        for (ScramMechanism mechanism : ScramMechanism.values()) {
            for (short v = 0; v <= 2; v++) {
                try (WireClient wire = connect()) {
                    var login = new ScramWireClient(wire).login(mechanism, "alice", "alice-pw", v);
                    assertThat(login.error()).as("%s v%d", mechanism, v).isEqualTo(Errors.NONE);
                    assertThat(new String(login.answer().data().authBytes(), StandardCharsets.UTF_8))
                            .startsWith("v=");
                    assertThat(login.answer().data().sessionLifetimeMs()).isEqualTo(v == 0 ? 0 : 60_000);
                    assertThat(metadataAnswered(wire)).isTrue();
                }
            }
        }
    }

    @Test
    void afterAV0HandshakeTheTokensTravelBareAndTheLoginHolds() throws Exception {
        try (WireClient wire = connect()) {
            var serverFinal =
                    new ScramWireClient(wire).loginWithBareTokens(ScramMechanism.SCRAM_SHA_512, "alice", "alice-pw");
            assertThat(serverFinal).hasValueSatisfying(v -> assertThat(v).startsWith("v="));
            assertThat(metadataAnswered(wire)).isTrue();
        }
        try (WireClient wire = connect()) {
            assertThat(new ScramWireClient(wire).loginWithBareTokens(ScramMechanism.SCRAM_SHA_512, "alice", "wrong"))
                    .isEmpty();
            assertThat(wire.closedByBroker()).isTrue();
        }
    }

    @Test
    void aRequestBeforeTheLoginClosesTheConnectionUnanswered() throws Exception {
        try (WireClient wire = connect()) {
            assertThat(metadataAnswered(wire)).isFalse();
        }
        try (WireClient wire = connect()) {
            var client = new ScramWireClient(wire);
            assertThat(client.handshake("SCRAM-SHA-512")).isEqualTo(Errors.NONE);
            assertThat(metadataAnswered(wire)).isFalse();
        }
    }

    @Test
    void aMechanismTheListenerDoesNotOfferIsRefusedAndTheConnectionCloses() throws Exception {
        try (WireClient wire = connect()) {
            var client = new ScramWireClient(wire);
            assertThat(client.handshake("PLAIN")).isEqualTo(Errors.UNSUPPORTED_SASL_MECHANISM);
            assertThat(wire.closedByBroker()).isTrue();
        }
    }

    @Test
    void aClientFinalMessageReplayedOnAnotherConnectionDoesNotLogIn() throws Exception {
        String recorded;
        try (WireClient wire = connect()) {
            var login = new ScramWireClient(wire).login(ScramMechanism.SCRAM_SHA_512, "bob", "bob-pw", (short) 2);
            assertThat(login.error()).isEqualTo(Errors.NONE);
            recorded = login.clientFinal();
        }
        try (WireClient wire = connect()) {
            var client = new ScramWireClient(wire);
            client.handshake("SCRAM-SHA-512");
            client.authenticate("n,,n=bob,r=fyko+d2lbbFgONRv9qkxdawL".getBytes(StandardCharsets.UTF_8), (short) 2);
            var replayed = client.authenticate(recorded.getBytes(StandardCharsets.UTF_8), (short) 2);
            assertThat(Errors.forCode(replayed.data().errorCode())).isEqualTo(Errors.SASL_AUTHENTICATION_FAILED);
            assertThat(wire.closedByBroker()).isTrue();
        }
    }

    @Test
    void garbledSaslTokensNeverLogInAndNeverHarmOtherClients() {
        List<String> good = List.of("n,,n=alice,r=abcdef", "c=biws,r=abcdef,p=AAAA");
        Properties.forAll(60, (Gen gen) -> {
            try (WireClient wire = connect()) {
                var client = new ScramWireClient(wire);
                client.handshake(gen.oneOf("SCRAM-SHA-256", "SCRAM-SHA-512"));
                int tokens = gen.ints(1, 3);
                boolean loggedIn = false;
                for (int i = 0; i < tokens && !loggedIn; i++) {
                    byte[] token = gen.oneOfGenerators(
                            g -> g.bytes(0, 300),
                            g -> g.utf8(0, 80),
                            g -> truncated(g, g.oneOf(good)),
                            g -> mutated(g, g.oneOf(good)));
                    var answer = client.authenticate(token, (short) gen.ints(0, 2));
                    Errors error = Errors.forCode(answer.data().errorCode());
                    assertThat(error).isIn(Errors.NONE, Errors.SASL_AUTHENTICATION_FAILED);
                    if (error != Errors.NONE) {
                        break;
                    }
                    // A first message may be accepted (a server-first answer), never a whole login: no proof here
                    // is right for alice's password.
                    assertThat(new String(answer.data().authBytes(), StandardCharsets.UTF_8))
                            .doesNotStartWith("v=");
                }
                assertThat(metadataAnswered(wire)).isFalse();
            }
            try (WireClient wire = connect()) {
                assertThat(new ScramWireClient(wire)
                                .login(ScramMechanism.SCRAM_SHA_256, "alice", "alice-pw", (short) 2)
                                .error())
                        .isEqualTo(Errors.NONE);
                assertThat(metadataAnswered(wire)).isTrue();
            }
        });
    }

    private static byte[] truncated(Gen gen, String message) {
        byte[] bytes = message.getBytes(StandardCharsets.UTF_8);
        return java.util.Arrays.copyOf(bytes, gen.ints(0, bytes.length - 1));
    }

    private static byte[] mutated(Gen gen, String message) {
        byte[] bytes = message.getBytes(StandardCharsets.UTF_8);
        int flips = gen.ints(1, 4);
        for (int i = 0; i < flips; i++) {
            bytes[gen.ints(0, bytes.length - 1)] = (byte) gen.anyInt();
        }
        return bytes;
    }

    @Test
    void anExpiredSessionClosesTheConnectionAndARenewedOneKeepsIt() throws Exception {
        try (WireClient expiring = connect();
                WireClient renewing = connect()) {
            var first = new ScramWireClient(expiring);
            var second = new ScramWireClient(renewing);
            assertThat(first.login(ScramMechanism.SCRAM_SHA_512, "alice", "alice-pw", (short) 2)
                            .error())
                    .isEqualTo(Errors.NONE);
            assertThat(second.login(ScramMechanism.SCRAM_SHA_512, "alice", "alice-pw", (short) 2)
                            .error())
                    .isEqualTo(Errors.NONE);
            clock.advance(40_000);
            assertThat(second.login(ScramMechanism.SCRAM_SHA_512, "alice", "alice-pw", (short) 2)
                            .error())
                    .isEqualTo(Errors.NONE);
            clock.advance(30_000);
            assertThat(metadataAnswered(renewing)).isTrue();
            assertThat(metadataAnswered(expiring)).isFalse();
        }
    }

    @Test
    void reAuthenticatingAsSomebodyElseFailsAndClosesTheConnection() throws Exception {
        try (WireClient wire = connect()) {
            var client = new ScramWireClient(wire);
            assertThat(client.login(ScramMechanism.SCRAM_SHA_512, "alice", "alice-pw", (short) 2)
                            .error())
                    .isEqualTo(Errors.NONE);
            var again = client.login(ScramMechanism.SCRAM_SHA_512, "bob", "bob-pw", (short) 2);
            assertThat(again.error()).isEqualTo(Errors.SASL_AUTHENTICATION_FAILED);
            assertThat(again.answer().data().errorMessage()).contains("Cannot change principals");
            assertThat(wire.closedByBroker()).isTrue();
        }
    }
}
