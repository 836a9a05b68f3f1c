package io.orderflow.platform;

import com.icegreen.greenmail.Managers;
import com.icegreen.greenmail.server.AbstractServer;
import com.icegreen.greenmail.server.ProtocolHandler;
import com.icegreen.greenmail.smtp.SmtpServer;
import com.icegreen.greenmail.util.GreenMail;
import com.icegreen.greenmail.util.ServerSetup;
import java.io.UncheckedIOException;
import java.net.Socket;
import java.net.SocketException;
import java.util.Map;

/**
 * The platform's SMTP server: GreenMail on a loopback port, keeping the mails in memory, that answers each command as
 * soon as it has handled it (its connections have {@code TCP_NODELAY}). Without it, GreenMail 2.1.5's every reply
 * reached the client about 43 ms late on Linux (Nagle's algorithm waiting for the client's delayed acknowledgement), so
 * notification-service's pool of ten connections carried about 45 mails a second whatever the service did
 * (notification-service's {@code GreenMailSmtp}, measured 2026-12-04). A mail provider answers at once.
 */
final class LocalSmtpServer {

    private LocalSmtpServer() {}

    /** A started server on a free port of {@code host}. */
    static GreenMail start(String host) {
        GreenMail server = new GreenMail(new ServerSetup(0, host, ServerSetup.PROTOCOL_SMTP)) {
            @Override
            protected Map<String, AbstractServer> createServices(ServerSetup[] setups, Managers managers) {
                return Map.of(ServerSetup.PROTOCOL_SMTP, new PromptSmtpServer(setups[0], managers));
            }
        };
        server.start();
        return server;
    }

    private static final class PromptSmtpServer extends SmtpServer {
        PromptSmtpServer(ServerSetup setup, Managers managers) {
            super(setup, managers);
        }

        @Override
        protected ProtocolHandler createProtocolHandler(Socket connection) {
            try {
                connection.setTcpNoDelay(true);
            } catch (SocketException e) {
                throw new UncheckedIOException(e);
            }
            return super.createProtocolHandler(connection);
        }
    }
}
