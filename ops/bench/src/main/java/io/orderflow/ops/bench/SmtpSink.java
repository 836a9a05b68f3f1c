package io.orderflow.ops.bench;

import io.vertx.core.Vertx;
import io.vertx.core.VertxOptions;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.net.NetServer;
import io.vertx.core.net.NetSocket;
import io.vertx.core.parsetools.RecordParser;
import java.util.Locale;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

/**
 * An SMTP server that accepts every mail and keeps none: the stand-in for a mail provider in benchmarks that run the
 * notification service on the machine they measure.
 *
 * <p>A benchmark's SMTP server is an instrument, not part of what is measured; in a deployment the mail provider runs
 * elsewhere. GreenMail, the test suites' server, parses and stores every message and runs a thread per connection: on
 * two cores at 2,000 orders/s it took 0.3-0.4 of them for ~250 mails/s (2026-12-03), CPU the services then lacked. This
 * sink answers the commands of RFC 5321 that a client sends one mail with (EHLO/HELO, MAIL, RCPT, DATA, RSET, NOOP,
 * QUIT) on one event loop and counts the mails whose data ended; it checks no address and stores no byte. Commands it
 * does not know get {@code 502}. It advertises no extension, so a client sends plain commands and no STARTTLS.
 *
 * <p>Thread-safe: {@link #accepted()} may be read from any thread.
 */
public final class SmtpSink implements AutoCloseable {

    private static final String GREETING = "220 orderflow-bench SMTP sink\r\n";

    private final Vertx vertx;
    private final NetServer server;
    private final AtomicLong accepted = new AtomicLong();

    private SmtpSink(Vertx vertx, NetServer server) {
        this.vertx = vertx;
        this.server = server;
    }

    /** Starts a sink on a free port of {@code host}. */
    public static SmtpSink start(String host) throws Exception {
        Vertx vertx = Vertx.vertx(new VertxOptions().setEventLoopPoolSize(1).setWorkerPoolSize(1));
        NetServer server = vertx.createNetServer();
        SmtpSink sink = new SmtpSink(vertx, server);
        server.connectHandler(sink::serve);
        try {
            server.listen(0, host).toCompletionStage().toCompletableFuture().get(10, TimeUnit.SECONDS);
        } catch (Exception e) {
            vertx.close();
            throw e;
        }
        return sink;
    }

    public int port() {
        return server.actualPort();
    }

    /** Mails accepted since the start: a {@code DATA} ended by its lone {@code .} line. */
    public long accepted() {
        return accepted.get();
    }

    private void serve(NetSocket socket) {
        Session session = new Session(socket);
        socket.handler(RecordParser.newDelimited("\r\n", line -> session.line(line.toString())));
        socket.write(GREETING);
    }

    /** One connection's state: in the command phase, or reading a mail's data until its lone dot. */
    private final class Session {
        private final NetSocket socket;
        private boolean inData;

        Session(NetSocket socket) {
            this.socket = socket;
        }

        void line(String line) {
            if (inData) {
                if (line.equals(".")) {
                    inData = false;
                    accepted.incrementAndGet();
                    socket.write("250 2.0.0 accepted\r\n");
                }
                return;
            }
            String verb = (line.length() >= 4 ? line.substring(0, 4) : line).toUpperCase(Locale.ROOT);
            switch (verb) {
                case "EHLO", "HELO" -> socket.write("250 orderflow-bench\r\n");
                case "MAIL", "RCPT", "RSET", "NOOP" -> socket.write("250 2.0.0 OK\r\n");
                case "DATA" -> {
                    inData = true;
                    socket.write("354 end data with <CR><LF>.<CR><LF>\r\n");
                }
                case "QUIT" -> socket.end(Buffer.buffer("221 2.0.0 bye\r\n"));
                default -> socket.write("502 5.5.2 command not recognized\r\n");
            }
        }
    }

    @Override
    public void close() throws Exception {
        vertx.close().toCompletionStage().toCompletableFuture().get(10, TimeUnit.SECONDS);
    }
}
