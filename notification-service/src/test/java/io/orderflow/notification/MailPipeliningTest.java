package io.orderflow.notification;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.orderflow.testing.quarkus.BrokerResource;
import io.orderflow.testing.quarkus.ServiceDatabaseResource;
import io.quarkus.test.common.QuarkusTestResourceLifecycleManager;
import io.quarkus.test.common.ResourceArg;
import io.quarkus.test.common.WithTestResource;
import io.quarkus.test.junit.QuarkusTest;
import jakarta.inject.Inject;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import javax.sql.DataSource;
import org.junit.jupiter.api.Test;

/**
 * notification-service against an SMTP server that offers {@code PIPELINING}: with the mailer's defaults, each mail's
 * {@code MAIL FROM}, {@code RCPT TO} and {@code DATA} reach the server before it has answered any of them.
 */
@QuarkusTest
@WithTestResource(value = BrokerResource.class, initArgs = @ResourceArg(name = "topics", value = "orders:3"))
@WithTestResource(
        value = ServiceDatabaseResource.class,
        initArgs = @ResourceArg(name = "service", value = "notification-service"))
@WithTestResource(MailPipeliningTest.PipeliningServerResource.class)
class MailPipeliningTest {

    private static final int MAILS = 20;

    @Inject
    DataSource dataSource;

    @Test
    void eachMailsEnvelopeAndDataCommandGoOutAsOneGroupWhenTheServerOffersPipelining() throws Exception {
        String batch = "pipelined-" + UUID.randomUUID().toString().substring(0, 8);
        PendingMails.write(dataSource, batch, MAILS);

        await().atMost(Duration.ofSeconds(60)).until(() -> ours(batch).size() == MAILS);

        List<PipeliningSmtpServer.Envelope> envelopes = ours(batch);
        assertThat(envelopes)
                .extracting(PipeliningSmtpServer.Envelope::groupedVerbs)
                .containsOnly(List.of("MAIL", "RCPT", "DATA"));
        assertThat(envelopes)
                .extracting(PipeliningSmtpServer.Envelope::messageId)
                .doesNotHaveDuplicates()
                .allMatch(id -> id.startsWith("<") && id.endsWith(">"));
    }

    private static List<PipeliningSmtpServer.Envelope> ours(String batch) {
        return PipeliningServerResource.server.received().stream()
                .filter(envelope -> envelope.recipient().startsWith(batch + "-"))
                .toList();
    }

    /** Starts the {@link PipeliningSmtpServer} and gives it to the service as its SMTP server. */
    public static class PipeliningServerResource implements QuarkusTestResourceLifecycleManager {
        static volatile PipeliningSmtpServer server;

        @Override
        public Map<String, String> start() {
            server = PipeliningSmtpServer.start();
            return Map.of("quarkus.mailer.host", "127.0.0.1", "quarkus.mailer.port", Integer.toString(server.port()));
        }

        @Override
        public void stop() {
            try {
                server.close();
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }
    }
}
