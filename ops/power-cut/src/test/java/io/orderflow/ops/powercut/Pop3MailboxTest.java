package io.orderflow.ops.powercut;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import jakarta.mail.Message;
import jakarta.mail.Session;
import jakarta.mail.Transport;
import jakarta.mail.internet.InternetAddress;
import jakarta.mail.internet.MimeMessage;
import java.util.Properties;
import org.junit.jupiter.api.Test;

class Pop3MailboxTest {

    @Test
    void everyMailTheCatcherReceivesWhoeverItIsForIsInItsOneMailboxWithItsMessageId() throws Exception {
        MailCatcher catcher = MailCatcher.start();
        try {
            send(catcher, "c-1@customers.example", "<event-1@orderflow>");
            send(catcher, "c-2@customers.example", "<event-2@orderflow>");
            send(catcher, "c-1@customers.example", "<event-1@orderflow>");

            assertThat(catcher.mailbox().messageIds())
                    .containsExactly("<event-1@orderflow>", "<event-2@orderflow>", "<event-1@orderflow>");
            assertThat(Pop3Mailbox.parse(catcher.mailboxUri()).messageIds()).hasSize(3);
        } finally {
            catcher.stop();
        }
    }

    @Test
    void aMailboxReadAgainHasTheNewMailsAfterTheOldAndOneEmptiedMeanwhileIsReadAfresh() throws Exception {
        MailCatcher catcher = MailCatcher.start();
        try {
            Pop3Mailbox mailbox = catcher.mailbox();
            send(catcher, "c-1@customers.example", "<event-1@orderflow>");
            assertThat(mailbox.messageIds()).containsExactly("<event-1@orderflow>");

            send(catcher, "c-2@customers.example", "<event-2@orderflow>");
            send(catcher, "c-3@customers.example", "<event-3@orderflow>");
            assertThat(mailbox.messageIds())
                    .containsExactly("<event-1@orderflow>", "<event-2@orderflow>", "<event-3@orderflow>");
            assertThat(mailbox.messageIds()).hasSize(3);

            catcher.purge();
            send(catcher, "c-4@customers.example", "<event-4@orderflow>");
            send(catcher, "c-5@customers.example", "<event-5@orderflow>");
            send(catcher, "c-6@customers.example", "<event-6@orderflow>");
            send(catcher, "c-7@customers.example", "<event-7@orderflow>");
            assertThat(mailbox.messageIds())
                    .containsExactly(
                            "<event-4@orderflow>", "<event-5@orderflow>", "<event-6@orderflow>", "<event-7@orderflow>");
        } finally {
            catcher.stop();
        }
    }

    @Test
    void aMailboxAddressMustBePop3WithCredentialsHostAndPort() {
        assertThat(Pop3Mailbox.parse("pop3://orderflow:p%40ss@localhost:1110"))
                .hasToString("pop3://orderflow@localhost:1110");
        for (String wrong : new String[] {
            "imap://orderflow:orderflow@localhost:1110",
            "pop3://localhost:1110",
            "pop3://orderflow@localhost:1110",
            "pop3://orderflow:orderflow@localhost"
        }) {
            assertThatThrownBy(() -> Pop3Mailbox.parse(wrong))
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("pop3://USER:PASSWORD@HOST:PORT");
        }
    }

    private static void send(MailCatcher catcher, String to, String messageId) throws Exception {
        String[] server = catcher.smtpServer().split(":");
        Properties properties = new Properties();
        properties.put("mail.smtp.host", server[0]);
        properties.put("mail.smtp.port", server[1]);
        MimeMessage message = new MimeMessage(Session.getInstance(properties)) {
            @Override
            protected void updateMessageID() throws jakarta.mail.MessagingException {
                setHeader("Message-ID", messageId);
            }
        };
        message.setFrom(new InternetAddress("orders@orderflow.example"));
        message.setRecipient(Message.RecipientType.TO, new InternetAddress(to));
        message.setSubject("order");
        message.setText("body");
        Transport.send(message);
    }
}
