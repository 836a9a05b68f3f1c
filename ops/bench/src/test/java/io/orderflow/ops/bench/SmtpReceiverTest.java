package io.orderflow.ops.bench;

import static org.assertj.core.api.Assertions.assertThat;

import io.orderflow.ops.load.WallClock;
import jakarta.mail.Message;
import jakarta.mail.MessagingException;
import jakarta.mail.Session;
import jakarta.mail.Transport;
import jakarta.mail.internet.InternetAddress;
import jakarta.mail.internet.MimeMessage;
import java.util.Properties;
import java.util.UUID;
import org.junit.jupiter.api.Test;

class SmtpReceiverTest {

    /** A mail as notification-service sends one: its Message-ID names the event it announces. */
    private static MimeMessage mail(Session session, String messageId, String to) throws MessagingException {
        MimeMessage mail = new MimeMessage(session) {
            @Override
            protected void updateMessageID() throws MessagingException {
                if (messageId != null) {
                    setHeader("Message-ID", messageId);
                }
            }
        };
        mail.setFrom(new InternetAddress("orders@orderflow.test"));
        mail.setRecipient(Message.RecipientType.TO, new InternetAddress(to));
        mail.setSubject("Your order");
        // a line of one dot in the body is dot-stuffed by the client and must not end the data early
        mail.setText("line one\r\n.\r\nline three");
        mail.saveChanges();
        return mail;
    }

    private static Session session(SmtpReceiver receiver) {
        Properties properties = new Properties();
        properties.put("mail.smtp.host", "127.0.0.1");
        properties.put("mail.smtp.port", Integer.toString(receiver.port()));
        return Session.getInstance(properties);
    }

    @Test
    void notesWhenItAcceptedEachEventsMailOverOneConnection() throws Exception {
        try (SmtpReceiver receiver = SmtpReceiver.start("127.0.0.1")) {
            Session session = session(receiver);
            UUID first = UUID.randomUUID();
            UUID second = UUID.randomUUID();
            long before = WallClock.micros();
            try (Transport transport = session.getTransport("smtp")) {
                transport.connect();
                for (UUID event : new UUID[] {first, second}) {
                    MimeMessage mail = mail(session, "<" + event + "@orderflow>", "c-" + event + "@example.test");
                    transport.sendMessage(mail, mail.getAllRecipients());
                }
            }
            long after = WallClock.micros();

            assertThat(receiver.acceptedAtMicros(first)).isBetween(before, after);
            assertThat(receiver.acceptedAtMicros(second)).isBetween(receiver.acceptedAtMicros(first), after);
            assertThat(receiver.acceptedAtMicros(UUID.randomUUID())).isNull();
            assertThat(receiver.accepted()).isEqualTo(2);
            assertThat(receiver.eventsMailed()).isEqualTo(2);
        }
    }

    @Test
    void aResentMailKeepsItsFirstAcceptanceAndOneWithoutAnEventIdIsCountedApart() throws Exception {
        try (SmtpReceiver receiver = SmtpReceiver.start("127.0.0.1")) {
            Session session = session(receiver);
            UUID event = UUID.randomUUID();
            Transport.send(mail(session, "<" + event + "@orderflow>", "c-1@example.test"));
            long first = receiver.acceptedAtMicros(event);
            Transport.send(mail(session, "<" + event + "@orderflow>", "c-1@example.test"));
            Transport.send(mail(session, "<not-an-event@example.test>", "c-2@example.test"));

            assertThat(receiver.acceptedAtMicros(event)).isEqualTo(first);
            assertThat(receiver.accepted()).isEqualTo(3);
            assertThat(receiver.eventsMailed()).isEqualTo(1);
            assertThat(receiver.resent()).isEqualTo(1);
            assertThat(receiver.unidentified()).isEqualTo(1);
        }
    }

    @Test
    void theCpuOfAnOpenConnectionsThreadIsCounted() throws Exception {
        try (SmtpReceiver receiver = SmtpReceiver.start("127.0.0.1")) {
            Session session = session(receiver);
            double before = receiver.cpuSeconds();
            try (Transport transport = session.getTransport("smtp")) {
                transport.connect();
                MimeMessage mail = mail(session, "<" + UUID.randomUUID() + "@orderflow>", "c-1@example.test");
                transport.sendMessage(mail, mail.getAllRecipients());

                assertThat(receiver.cpuSeconds()).isGreaterThan(before);
            }
        }
    }
}
