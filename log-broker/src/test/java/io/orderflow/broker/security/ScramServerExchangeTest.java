package io.orderflow.broker.security;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.orderflow.broker.log.LogFiles;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.Base64;
import java.util.List;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The server side of SCRAM against RFC 7677's worked example, and what it refuses. */
class ScramServerExchangeTest {
    // RFC 7677 section 3: user "user", password "pencil".
    private static final String CLIENT_FIRST = "n,,n=user,r=rOprNGfwEbeRWgbNEkqO";
    private static final String SERVER_NONCE = "%hvYDpWUa2RaTCAfuxFIlj)hNlF$k0";
    private static final String SERVER_FIRST =
            "r=rOprNGfwEbeRWgbNEkqO%hvYDpWUa2RaTCAfuxFIlj)hNlF$k0,s=W22ZaJ0SNY7soEsUEjb6gQ==,i=4096";
    private static final String CLIENT_FINAL = "c=biws,r=rOprNGfwEbeRWgbNEkqO%hvYDpWUa2RaTCAfuxFIlj)hNlF$k0,"
            + "p=dHzbZapWIk4jUhN+Ute9ytag9zjfMHgsqmmiz7AndVQ=";
    private static final String SERVER_FINAL = "v=6rriTRBi23WpRR/wtup+mMhUZUn/dB5nLTJRsjl95G4=";

    @TempDir
    Path dir;

    private CredentialStore credentials;

    @BeforeEach
    void userWithRfcPassword() throws Exception {
        credentials = CredentialStore.open(dir, LogFiles.real());
        byte[] salt = Base64.getDecoder().decode("W22ZaJ0SNY7soEsUEjb6gQ==");
        ScramMechanism sha256 = ScramMechanism.SCRAM_SHA_256;
        credentials.change(
                List.of(),
                List.of(new CredentialStore.ScramCredentialUpsert(
                        "user",
                        ScramCredential.fromSaltedPassword(
                                sha256, salt, 4096, sha256.saltedPassword("pencil".toCharArray(), salt, 4096)))));
    }

    private ScramServerExchange exchange() {
        return new ScramServerExchange(ScramMechanism.SCRAM_SHA_256, credentials, () -> SERVER_NONCE);
    }

    private static byte[] bytes(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    @Test
    void theRfc7677ExampleLogsInWithTheRfcsServerMessages() {
        ScramServerExchange exchange = exchange();
        assertThat(new String(exchange.evaluate(bytes(CLIENT_FIRST)), StandardCharsets.UTF_8))
                .isEqualTo(SERVER_FIRST);
        assertThat(exchange.complete()).isFalse();
        assertThat(new String(exchange.evaluate(bytes(CLIENT_FINAL)), StandardCharsets.UTF_8))
                .isEqualTo(SERVER_FINAL);
        assertThat(exchange.complete()).isTrue();
        assertThat(exchange.principal()).isEqualTo(KafkaPrincipal.user("user"));
    }

    @Test
    void librdkafkasClientNonceRepeatedBeforeTheWholeNonceIsAccepted() {
        // librdkafka before 2.6.1 sends r=<client nonce><client nonce><server nonce>; the proof covers what it sent.
        ScramServerExchange exchange = exchange();
        exchange.evaluate(bytes(CLIENT_FIRST));
        String doubled = "c=biws,r=rOprNGfwEbeRWgbNEkqO" + SERVER_FIRST.substring(2, SERVER_FIRST.indexOf(','));
        ScramMechanism m = ScramMechanism.SCRAM_SHA_256;
        byte[] salted =
                m.saltedPassword("pencil".toCharArray(), Base64.getDecoder().decode("W22ZaJ0SNY7soEsUEjb6gQ=="), 4096);
        byte[] clientKey = m.hmac(salted, bytes("Client Key"));
        String authMessage = CLIENT_FIRST.substring(3) + "," + SERVER_FIRST + "," + doubled;
        byte[] signature = m.hmac(m.hash(clientKey), bytes(authMessage));
        byte[] proof = new byte[clientKey.length];
        for (int i = 0; i < proof.length; i++) {
            proof[i] = (byte) (clientKey[i] ^ signature[i]);
        }
        exchange.evaluate(bytes(doubled + ",p=" + Base64.getEncoder().encodeToString(proof)));
        assertThat(exchange.complete()).isTrue();
    }

    @Test
    void aProofMadeWithAnotherPasswordFails() {
        ScramServerExchange exchange = exchange();
        exchange.evaluate(bytes(CLIENT_FIRST));
        String forged = CLIENT_FINAL.replace("p=dHzb", "p=AAAA");
        assertThatThrownBy(() -> exchange.evaluate(bytes(forged)))
                .isInstanceOf(SaslAuthenticationException.class)
                .hasMessageContaining("invalid credentials")
                .hasMessageNotContaining("pencil");
        assertThat(exchange.complete()).isFalse();
    }

    @Test
    void aClientFinalMessageRecordedFromAnotherExchangeIsRefused() {
        ScramServerExchange fresh =
                new ScramServerExchange(ScramMechanism.SCRAM_SHA_256, credentials, () -> "another-server-nonce");
        fresh.evaluate(bytes(CLIENT_FIRST));
        assertThatThrownBy(() -> fresh.evaluate(bytes(CLIENT_FINAL)))
                .isInstanceOf(SaslAuthenticationException.class)
                .extracting(e -> ((SaslAuthenticationException) e).reason())
                .isEqualTo("a nonce that is not this exchange's");
    }

    @Test
    void anUnknownUserFailsWithTheSameMessageAsAWrongPassword() {
        var unknown =
                org.assertj.core.api.Assertions.catchThrowable(() -> exchange().evaluate(bytes("n,,n=nobody,r=abc")));
        ScramServerExchange wrong = exchange();
        wrong.evaluate(bytes(CLIENT_FIRST));
        var wrongPassword = org.assertj.core.api.Assertions.catchThrowable(
                () -> wrong.evaluate(bytes(CLIENT_FINAL.replace("p=dHzb", "p=AAAA"))));
        assertThat(unknown.getMessage()).isEqualTo(wrongPassword.getMessage());
    }

    @Test
    void malformedAndUnsupportedFirstMessagesAreRefused() {
        for (String message : List.of(
                "",
                "n,,",
                "p=tls-unique,,n=user,r=abc",
                "n,a=other,n=user,r=abc",
                "n,,n=user",
                "n,,n=us=er,r=abc",
                "n,,m=ext,n=user,r=abc",
                "n,,n=user,r=abc,tokenauth=true",
                "n,,n=user,r=a b")) {
            assertThatThrownBy(() -> exchange().evaluate(bytes(message)))
                    .as(message)
                    .isInstanceOf(SaslAuthenticationException.class);
        }
    }

    @Test
    void escapedCommasAndEqualsInTheNameAreDecoded() throws Exception {
        byte[] salt = bytes("salt");
        ScramMechanism m = ScramMechanism.SCRAM_SHA_256;
        credentials.change(
                List.of(),
                List.of(new CredentialStore.ScramCredentialUpsert(
                        "a,b=c",
                        ScramCredential.fromSaltedPassword(
                                m, salt, 4096, m.saltedPassword("pw".toCharArray(), salt, 4096)))));
        assertThat(new String(exchange().evaluate(bytes("n,,n=a=2Cb=3Dc,r=abc")), StandardCharsets.UTF_8))
                .startsWith("r=abc" + SERVER_NONCE + ",s=");
    }

    @Test
    void aMessageAfterTheExchangeEndedFails() {
        ScramServerExchange exchange = exchange();
        exchange.evaluate(bytes(CLIENT_FIRST));
        exchange.evaluate(bytes(CLIENT_FINAL));
        assertThatThrownBy(() -> exchange.evaluate(bytes(CLIENT_FINAL)))
                .isInstanceOf(SaslAuthenticationException.class);
    }
}
