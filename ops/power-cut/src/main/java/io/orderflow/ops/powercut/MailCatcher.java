package io.orderflow.ops.powercut;

import com.icegreen.greenmail.store.FolderException;
import com.icegreen.greenmail.user.GreenMailUser;
import com.icegreen.greenmail.user.UserException;
import com.icegreen.greenmail.util.GreenMail;
import com.icegreen.greenmail.util.ServerSetup;

/**
 * An SMTP server outside the platform that keeps every mail it receives, whoever it is for, in one mailbox readable
 * over POP3: what docker compose's Mailpit is with {@code MP_POP3_AUTH} set, in this JVM (GreenMail, both on ports the
 * system chooses, on the loopback address). The invariant checker reads it as it reads Mailpit ({@link Pop3Mailbox}).
 */
public final class MailCatcher {
    private static final String USER = "orderflow-checker";
    private static final String PASSWORD = "checker";

    private final GreenMail server;

    private MailCatcher(GreenMail server) {
        this.server = server;
    }

    public static MailCatcher start() {
        GreenMail server = new GreenMail(new ServerSetup[] {
            new ServerSetup(0, "127.0.0.1", ServerSetup.PROTOCOL_SMTP),
            new ServerSetup(0, "127.0.0.1", ServerSetup.PROTOCOL_POP3)
        });
        server.start();
        try {
            GreenMailUser everyone = server.getUserManager().createUser(USER, USER, PASSWORD);
            server.getUserManager().setMessageDeliveryHandler((message, recipient) -> everyone);
        } catch (UserException e) {
            server.stop();
            throw new IllegalStateException(e);
        }
        return new MailCatcher(server);
    }

    /** Where notification-service sends: {@code HOST:PORT} ({@code ./run-platform --smtp-server}). */
    public String smtpServer() {
        return "127.0.0.1:" + server.getSmtp().getPort();
    }

    /** The one mailbox every mail lands in. */
    public Pop3Mailbox mailbox() {
        return new Pop3Mailbox("127.0.0.1", server.getPop3().getPort(), USER, PASSWORD);
    }

    /** {@link #mailbox()} as {@code ops/bin/invariants --mailbox} takes it. */
    public String mailboxUri() {
        return "pop3://" + USER + ":" + PASSWORD + "@127.0.0.1:"
                + server.getPop3().getPort();
    }

    /** Deletes every mail caught so far, as a mail catcher that prunes old mail does. */
    void purge() {
        try {
            server.purgeEmailFromAllMailboxes();
        } catch (FolderException e) {
            throw new IllegalStateException(e);
        }
    }

    public void stop() {
        server.stop();
    }
}
