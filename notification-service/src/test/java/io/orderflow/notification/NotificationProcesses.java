package io.orderflow.notification;

import com.icegreen.greenmail.util.GreenMail;
import io.orderflow.postgres.PostgresDatabase;
import io.orderflow.process.ServiceProcess;
import io.orderflow.testing.InProcessBroker;
import io.orderflow.testing.PackagedService;
import jakarta.mail.MessagingException;
import jakarta.mail.internet.MimeMessage;
import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;

/**
 * The packaged notification-service for the process tests ({@code *IT}): started on a test's database, broker and SMTP
 * server, and what those tests read back from the database and the SMTP server.
 */
final class NotificationProcesses {

    static final int SEND_CONCURRENCY = 16;
    /**
     * Short, so that a killed instance's claimed mails are sent again within the test; a send gets half of it, 6 s,
     * more than a test holds the SMTP server's answers back ({@link GreenMailSmtp.AcceptanceGate}).
     */
    static final Duration SEND_LEASE = Duration.ofSeconds(12);

    private NotificationProcesses() {}

    /** An instance whose log is {@code target/notification-<name>.log}, ready to consume and send. */
    static ServiceProcess start(PostgresDatabase database, InProcessBroker broker, GreenMail smtp, String name) {
        return start(database, broker, smtp.getSmtp().getPort(), name);
    }

    /**
     * An instance sending to {@code smtpPort} of 127.0.0.1, where no server may listen yet: it then tries again at
     * least every second ({@code send-backoff-max}).
     */
    static ServiceProcess start(PostgresDatabase database, InProcessBroker broker, int smtpPort, String name) {
        return PackagedService.builder(
                        "notification-service", database, broker.bootstrapServers(), "notification-" + name)
                .property("quarkus.mailer.host", "127.0.0.1")
                .property("quarkus.mailer.port", Integer.toString(smtpPort))
                .property("orderflow.notification-service.send-backoff-max", "1s")
                .property("orderflow.notification-service.send-concurrency", Integer.toString(SEND_CONCURRENCY))
                .property("orderflow.notification-service.send-lease", SEND_LEASE.toMillis() + "ms")
                .start();
    }

    /** A port of 127.0.0.1 that was free a moment ago. */
    static int freePort() throws IOException {
        try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            return socket.getLocalPort();
        }
    }

    /** The one number {@code sql} answers. */
    static long number(PostgresDatabase database, String sql) throws SQLException {
        try (Connection connection = database.connect();
                Statement statement = connection.createStatement();
                ResultSet row = statement.executeQuery(sql)) {
            row.next();
            return row.getLong(1);
        }
    }

    /** The Message-ID of every mail the server received, in the order received (a resend as often as it came). */
    static List<String> messageIds(GreenMail smtp) {
        return Arrays.stream(smtp.getReceivedMessages())
                .map(NotificationProcesses::messageId)
                .toList();
    }

    static String messageId(MimeMessage message) {
        try {
            return message.getMessageID();
        } catch (MessagingException e) {
            throw new IllegalStateException(e);
        }
    }
}
