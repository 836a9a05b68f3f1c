package io.orderflow.notification;

import com.icegreen.greenmail.util.GreenMail;
import io.quarkus.test.common.QuarkusTestResourceLifecycleManager;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.ServerSocket;
import java.util.Map;

/**
 * A real SMTP server for the tests (GreenMail, in the test JVM, on a free loopback port, answering at once:
 * {@link GreenMailSmtp}), given to the service as
 * {@code quarkus.mailer.host/port}. Tests may {@link #stopServer()} and {@link #startServer()} it again on the same port
 * to play an SMTP outage, and hold the server's answers at its {@link #gate()}.
 */
public class SmtpServerResource implements QuarkusTestResourceLifecycleManager {

    private static final GreenMailSmtp.AcceptanceGate GATE = new GreenMailSmtp.AcceptanceGate();
    private static volatile GreenMail server;
    private static int port;

    /** The gate every mail passes after it is stored and before the server answers it: open unless a test closes it. */
    public static GreenMailSmtp.AcceptanceGate gate() {
        return GATE;
    }

    public static GreenMail server() {
        return server;
    }

    public static synchronized void stopServer() {
        server.stop();
    }

    public static synchronized void startServer() {
        server = GreenMailSmtp.start(port, GATE);
    }

    @Override
    public Map<String, String> start() {
        try (ServerSocket socket = new ServerSocket(0)) {
            port = socket.getLocalPort();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        startServer();
        return Map.of("quarkus.mailer.host", "127.0.0.1", "quarkus.mailer.port", Integer.toString(port));
    }

    @Override
    public void stop() {
        if (server != null) {
            server.stop();
        }
    }
}
