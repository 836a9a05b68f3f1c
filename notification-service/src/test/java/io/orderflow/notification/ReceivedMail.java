package io.orderflow.notification;

import com.icegreen.greenmail.util.GreenMailUtil;
import jakarta.mail.Address;
import jakarta.mail.MessagingException;
import jakarta.mail.internet.MimeMessage;
import java.util.Arrays;
import java.util.List;

/**
 * A mail the test SMTP server (GreenMail) received: its recipient, Message-ID, subject and text. {@link #all} and
 * {@link #to} keep each recipient's mails in the order the server received them (a mailbox keeps its messages in
 * arrival order).
 */
record ReceivedMail(String recipient, String messageId, String subject, String body) {

    /** Every mail {@link SmtpServerResource} received, each recipient's first received first. */
    static List<ReceivedMail> all() {
        return Arrays.stream(SmtpServerResource.server().getReceivedMessages())
                .map(ReceivedMail::of)
                .toList();
    }

    /** The mails {@link SmtpServerResource} received for {@code recipient}, first received first. */
    static List<ReceivedMail> to(String recipient) {
        return all().stream().filter(mail -> mail.recipient().equals(recipient)).toList();
    }

    private static ReceivedMail of(MimeMessage message) {
        try {
            Address[] recipients = message.getAllRecipients();
            return new ReceivedMail(
                    recipients == null || recipients.length == 0 ? "" : recipients[0].toString(),
                    message.getMessageID(),
                    message.getSubject(),
                    GreenMailUtil.getBody(message));
        } catch (MessagingException e) {
            throw new IllegalStateException(e);
        }
    }
}
