package io.orderflow.ops.powercut;

import jakarta.mail.Folder;
import jakarta.mail.MessagingException;
import jakarta.mail.Session;
import jakarta.mail.Store;
import java.net.URI;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Properties;
import org.eclipse.angus.mail.pop3.POP3Folder;

/**
 * The mails an SMTP server received, read back as any mail client reads them: over POP3, one mailbox that holds them
 * all. Mailpit (docker compose's mail catcher) serves every mail it caught in one POP3 mailbox once {@code
 * MP_POP3_AUTH} is set; the drills' GreenMail delivers every recipient's mail into one user's mailbox for the same
 * reason. Each mail's headers are fetched once ({@code TOP n 0}, or the whole mail where a server does not answer
 * it): the checker needs each mail's Message-ID.
 *
 * <p>Given as {@code pop3://USER:PASSWORD@HOST:PORT}. Each call opens its own session, so it sees what arrived since,
 * and reads only that. Thread-safe.
 */
public final class Pop3Mailbox {
    private static final int TIMEOUT_MILLIS = 10_000;

    private final String host;
    private final int port;
    private final String user;
    private final String password;
    private final List<String> seen = new ArrayList<>(); // guarded by this
    private String lastUid; // the unique id of seen's last mail; guarded by this

    public Pop3Mailbox(String host, int port, String user, String password) {
        this.host = host;
        this.port = port;
        this.user = user;
        this.password = password;
    }

    /** {@code pop3://USER:PASSWORD@HOST:PORT}; user and password URL-encoded where they need it. */
    public static Pop3Mailbox parse(String uri) {
        URI parsed = URI.create(uri);
        if (!"pop3".equals(parsed.getScheme())
                || parsed.getHost() == null
                || parsed.getPort() < 1
                || parsed.getRawUserInfo() == null
                || !parsed.getRawUserInfo().contains(":")) {
            throw new IllegalArgumentException("not pop3://USER:PASSWORD@HOST:PORT: " + uri);
        }
        String[] credentials = parsed.getRawUserInfo().split(":", 2);
        return new Pop3Mailbox(
                parsed.getHost(),
                parsed.getPort(),
                URLDecoder.decode(credentials[0], StandardCharsets.UTF_8),
                URLDecoder.decode(credentials[1], StandardCharsets.UTF_8));
    }

    /**
     * Every mail's Message-ID, copies included, in the mailbox's order; a mail without one as the empty string. Only
     * the mails that arrived since the last call are fetched: a mailbox the checker reads is only appended to, and the
     * last mail read is recognised again by its POP3 unique id ({@code UIDL}); if it is not (the mailbox was pruned or
     * emptied), or the server has no unique ids, every mail is read again.
     */
    public synchronized List<String> messageIds() {
        Properties properties = new Properties();
        properties.put("mail.pop3.connectiontimeout", Integer.toString(TIMEOUT_MILLIS));
        properties.put("mail.pop3.timeout", Integer.toString(TIMEOUT_MILLIS));
        Session session = Session.getInstance(properties);
        try (Store store = session.getStore("pop3")) {
            store.connect(host, port, user, password);
            Folder inbox = store.getFolder("INBOX");
            inbox.open(Folder.READ_ONLY);
            try {
                int count = inbox.getMessageCount();
                if (!seen.isEmpty() && (count < seen.size() || !lastUid.equals(uid(inbox, seen.size())))) {
                    seen.clear();
                    lastUid = null;
                }
                for (int number = seen.size() + 1; number <= count; number++) {
                    String[] header = inbox.getMessage(number).getHeader("Message-ID");
                    seen.add(header == null || header.length == 0 ? "" : header[0].trim());
                }
                lastUid = seen.isEmpty() ? null : uid(inbox, seen.size());
                List<String> ids = List.copyOf(seen);
                if (lastUid == null) {
                    seen.clear(); // no unique ids to recognise the mailbox by: read it whole next time
                }
                return ids;
            } finally {
                inbox.close(false);
            }
        } catch (MessagingException e) {
            throw new IllegalStateException("Cannot read the mailbox " + this + ": " + e.getMessage(), e);
        }
    }

    /** The POP3 unique id of message {@code number}, or null if the server gives none. */
    private static String uid(Folder inbox, int number) {
        try {
            return inbox instanceof POP3Folder pop3 ? pop3.getUID(inbox.getMessage(number)) : null;
        } catch (MessagingException e) {
            return null;
        }
    }

    @Override
    public String toString() {
        return "pop3://" + user + "@" + host + ":" + port;
    }
}
