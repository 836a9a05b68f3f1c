package io.orderflow.notification;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;

/**
 * An SMTP server that offers {@code PIPELINING} (RFC 2920) in its {@code EHLO} answer and witnesses whether a client
 * uses it: on {@code MAIL FROM} it answers nothing until the client's {@code DATA} has arrived too, or until
 * {@link #WAIT_FOR_GROUP} has passed. A client that pipelines sends {@code MAIL FROM}, {@code RCPT TO} and {@code DATA}
 * as one group, so the server reads all three before its first answer; a client that waits for each answer sends
 * nothing more, and after the wait the server reads on one command at a time. Each mail is recorded as an
 * {@link Envelope} with the commands read before the first answer.
 *
 * <p>GreenMail, the tests' other server, does not offer pipelining, and reads its commands behind a buffer that a test
 * cannot look into, hence this one. It keeps no mailbox: only what the tests ask.
 */
final class PipeliningSmtpServer implements AutoCloseable {

    static final Duration WAIT_FOR_GROUP = Duration.ofSeconds(3);

    /** One mail: the verbs read before the server's first answer in its transaction, its recipient and Message-ID. */
    record Envelope(List<String> groupedVerbs, String recipient, String messageId) {}

    private final ServerSocket listener;
    private final ExecutorService connections = Executors.newVirtualThreadPerTaskExecutor();
    private final Queue<Envelope> received = new ConcurrentLinkedQueue<>();

    private PipeliningSmtpServer(ServerSocket listener) {
        this.listener = listener;
        connections.submit(this::accept);
    }

    /** A started server on a free port of 127.0.0.1. */
    static PipeliningSmtpServer start() {
        try {
            return new PipeliningSmtpServer(new ServerSocket(0, 50, InetAddress.getLoopbackAddress()));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    int port() {
        return listener.getLocalPort();
    }

    /** Every mail received so far, in the order the server accepted them. */
    List<Envelope> received() {
        return List.copyOf(received);
    }

    @Override
    public void close() throws IOException {
        listener.close();
        connections.shutdownNow();
    }

    private void accept() {
        while (!listener.isClosed()) {
            try {
                Socket connection = listener.accept();
                connections.submit(() -> serve(connection));
            } catch (IOException closed) {
                return;
            }
        }
    }

    private void serve(Socket connection) {
        try (connection) {
            connection.setTcpNoDelay(true);
            BufferedReader in =
                    new BufferedReader(new InputStreamReader(connection.getInputStream(), StandardCharsets.US_ASCII));
            OutputStream out = connection.getOutputStream();
            answer(out, "220 pipelining.test ESMTP");
            for (String line = in.readLine(); line != null; line = in.readLine()) {
                switch (verb(line)) {
                    case "EHLO" -> answer(out, "250-pipelining.test", "250-PIPELINING", "250 8BITMIME");
                    case "HELO", "RSET", "NOOP" -> answer(out, "250 OK");
                    case "MAIL" -> transaction(connection, in, out, line);
                    case "QUIT" -> {
                        answer(out, "221 Bye");
                        return;
                    }
                    default -> answer(out, "502 Not implemented here");
                }
            }
        } catch (IOException closed) {
            // The client went away: nothing to keep.
        }
    }

    /** From {@code MAIL FROM} to the answer to the mail's data, reading the pipelined group first. */
    private void transaction(Socket connection, BufferedReader in, OutputStream out, String mail) throws IOException {
        List<String> group = new ArrayList<>(List.of(mail));
        connection.setSoTimeout((int) WAIT_FOR_GROUP.toMillis());
        try {
            while (!verb(group.getLast()).equals("DATA")) {
                String next = in.readLine();
                if (next == null) {
                    return;
                }
                group.add(next);
            }
        } catch (SocketTimeoutException notPipelined) {
            // The client waits for the answer to what it sent: answer it, then read on one command at a time.
        } finally {
            connection.setSoTimeout(0);
        }
        List<String> grouped = group.stream().map(PipeliningSmtpServer::verb).toList();
        String recipient = "";
        for (String command : group) {
            if (verb(command).equals("RCPT")) {
                recipient = command.substring(command.indexOf('<') + 1, command.lastIndexOf('>'));
            }
            if (!verb(command).equals("DATA")) {
                answer(out, "250 OK");
            }
        }
        while (!verb(group.getLast()).equals("DATA")) {
            String next = in.readLine();
            if (next == null) {
                return;
            }
            if (verb(next).equals("RCPT")) {
                recipient = next.substring(next.indexOf('<') + 1, next.lastIndexOf('>'));
            }
            if (!verb(next).equals("DATA")) {
                answer(out, "250 OK");
            }
            group.add(next);
        }
        answer(out, "354 End data with <CR><LF>.<CR><LF>");
        String messageId = "";
        for (String line = in.readLine(); line != null && !line.equals("."); line = in.readLine()) {
            if (messageId.isEmpty() && line.toLowerCase(Locale.ROOT).startsWith("message-id:")) {
                messageId = line.substring("message-id:".length()).strip();
            }
        }
        received.add(new Envelope(grouped, recipient, messageId));
        answer(out, "250 OK queued");
    }

    private static String verb(String command) {
        return command.length() < 4
                ? command.toUpperCase(Locale.ROOT)
                : command.substring(0, 4).toUpperCase(Locale.ROOT);
    }

    private static void answer(OutputStream out, String... lines) throws IOException {
        out.write((String.join("\r\n", lines) + "\r\n").getBytes(StandardCharsets.US_ASCII));
        out.flush();
    }
}
