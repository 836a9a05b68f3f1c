package io.orderflow.notification;

import com.icegreen.greenmail.Managers;
import com.icegreen.greenmail.imap.ImapHostManager;
import com.icegreen.greenmail.server.AbstractServer;
import com.icegreen.greenmail.server.ProtocolHandler;
import com.icegreen.greenmail.smtp.SmtpConnection;
import com.icegreen.greenmail.smtp.SmtpHandler;
import com.icegreen.greenmail.smtp.SmtpManager;
import com.icegreen.greenmail.smtp.SmtpServer;
import com.icegreen.greenmail.smtp.SmtpState;
import com.icegreen.greenmail.smtp.commands.SmtpCommand;
import com.icegreen.greenmail.smtp.commands.SmtpCommandRegistry;
import com.icegreen.greenmail.user.UserManager;
import com.icegreen.greenmail.util.GreenMail;
import com.icegreen.greenmail.util.ServerSetup;
import jakarta.mail.MessagingException;
import java.io.UncheckedIOException;
import java.net.Socket;
import java.net.SocketException;
import java.util.HashSet;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.atomic.LongAdder;

/**
 * GreenMail's SMTP server on a loopback port, answering each command as soon as it has handled it: its connections
 * have {@code TCP_NODELAY}. Without it, on Linux, every reply of GreenMail 2.1.5 reached the client about 43 ms after
 * the command (Nagle's algorithm holding the reply's end until the client's delayed acknowledgement), so one connection
 * carried about 4.5 mails a second whatever the client did; with it, 0.4-3 ms a reply (measured with a bare socket
 * client, 2026-12-04). A mail provider answers at once too, so the tests and the sender's benchmark measure the
 * service, not that delay. It also offers {@code PIPELINING} in its {@code EHLO} answer, as Postfix does by default, so
 * the mailer sends each mail's {@code MAIL FROM}, {@code RCPT TO} and {@code DATA} without waiting between them
 * ({@code quarkus.mailer.pipelining=false} turns that off on the client's side, for a comparison).
 *
 * <p>With an {@link AcceptanceGate}, the server stores each mail and then, while the gate is closed, holds back its
 * {@code 250} answer: the state in which a sender that dies sends the mail twice.
 */
final class GreenMailSmtp {

    private GreenMailSmtp() {}

    /** A started server on {@code port} of 127.0.0.1 (0: a free port). */
    static GreenMail start(int port) {
        return start(port, new AcceptanceGate(), new LongAdder());
    }

    /** A started server on {@code port} of 127.0.0.1 (0: a free port) whose answers to mails {@code gate} holds. */
    static GreenMail start(int port, AcceptanceGate gate) {
        return start(port, gate, new LongAdder());
    }

    /** As {@link #start(int, AcceptanceGate)}, counting the connections it accepts in {@code connections}. */
    static GreenMail start(int port, AcceptanceGate gate, LongAdder connections) {
        GreenMail server = new GreenMail(new ServerSetup(port, "127.0.0.1", ServerSetup.PROTOCOL_SMTP)) {
            @Override
            protected Map<String, AbstractServer> createServices(ServerSetup[] setups, Managers managers) {
                return Map.of(
                        ServerSetup.PROTOCOL_SMTP,
                        new PromptSmtpServer(setups[0], new GatedManagers(managers, gate), connections));
            }
        };
        server.start();
        return server;
    }

    /**
     * Holds the server's answer to each mail's data, after the mail is stored, while closed (open at first).
     * Thread-safe.
     */
    static final class AcceptanceGate {
        private final Set<String> held = new HashSet<>();
        private boolean closed;
        private int mostHeld;

        synchronized void close() {
            closed = true;
        }

        synchronized void open() {
            closed = false;
            notifyAll();
        }

        /** The Message-IDs of the mails stored and not answered yet. */
        synchronized Set<String> held() {
            return Set.copyOf(held);
        }

        /** The most mails held at once since the gate was made or {@link #resetMostHeld() reset}. */
        synchronized int mostHeld() {
            return mostHeld;
        }

        synchronized void resetMostHeld() {
            mostHeld = held.size();
        }

        synchronized void pass(String messageId) throws InterruptedException {
            held.add(messageId);
            mostHeld = Math.max(mostHeld, held.size());
            try {
                while (closed) {
                    wait();
                }
            } finally {
                held.remove(messageId);
            }
        }
    }

    /** GreenMail's managers, with an SMTP manager that passes each stored mail through the gate. */
    private static final class GatedManagers extends Managers {
        private final Managers managers;
        private final SmtpManager smtpManager;

        GatedManagers(Managers managers, AcceptanceGate gate) {
            this.managers = managers;
            this.smtpManager = new GatedSmtpManager(managers.getImapHostManager(), managers.getUserManager(), gate);
        }

        @Override
        public SmtpManager getSmtpManager() {
            return smtpManager;
        }

        @Override
        public UserManager getUserManager() {
            return managers.getUserManager();
        }

        @Override
        public ImapHostManager getImapHostManager() {
            return managers.getImapHostManager();
        }
    }

    private static final class GatedSmtpManager extends SmtpManager {
        private final AcceptanceGate gate;

        GatedSmtpManager(ImapHostManager imapHostManager, UserManager userManager, AcceptanceGate gate) {
            super(imapHostManager, userManager);
            this.gate = gate;
        }

        /** Stores the mail (GreenMail's own, synchronized), then waits at the gate before the server answers. */
        @Override
        public void send(SmtpState state) {
            super.send(state);
            try {
                gate.pass(state.getMessage().getMessage().getMessageID());
            } catch (MessagingException e) {
                throw new IllegalStateException(e);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
    }

    private static final class PromptSmtpServer extends SmtpServer {
        private final SmtpManager smtpManager;
        private final LongAdder connections;

        PromptSmtpServer(ServerSetup setup, Managers managers, LongAdder connections) {
            super(setup, managers);
            this.smtpManager = managers.getSmtpManager();
            this.connections = connections;
        }

        @Override
        protected ProtocolHandler createProtocolHandler(Socket connection) {
            connections.increment();
            try {
                connection.setTcpNoDelay(true);
            } catch (SocketException e) {
                throw new UncheckedIOException(e);
            }
            return new SmtpHandler(new PipeliningCommands(), smtpManager, connection);
        }
    }

    /**
     * GreenMail's commands, with an {@code EHLO} answer that offers {@code PIPELINING} (RFC 2920). GreenMail reads each
     * connection's commands in turn from one buffered stream and answers each in order, which is all a pipelining
     * client needs of it; its own answer names only {@code AUTH}, so clients wait for every answer.
     */
    private static final class PipeliningCommands extends SmtpCommandRegistry {
        private static final SmtpCommand EHLO = new SmtpCommand() {
            @Override
            public void execute(SmtpConnection conn, SmtpState state, SmtpManager manager, String commandLine) {
                conn.setHeloName(
                        commandLine.length() > 5 ? commandLine.substring(5).strip() : "");
                state.clearMessage();
                conn.send("250-" + conn.getServerGreetingsName());
                conn.send("250-PIPELINING");
                conn.send("250 AUTH PLAIN LOGIN");
            }
        };

        @Override
        public SmtpCommand getCommand(String name) {
            return "EHLO".equalsIgnoreCase(name) ? EHLO : super.getCommand(name);
        }
    }
}
