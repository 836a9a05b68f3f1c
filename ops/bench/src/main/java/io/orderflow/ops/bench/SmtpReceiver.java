package io.orderflow.ops.bench;

import com.icegreen.greenmail.Managers;
import com.icegreen.greenmail.mail.MovingMessage;
import com.icegreen.greenmail.server.AbstractServer;
import com.icegreen.greenmail.server.ProtocolHandler;
import com.icegreen.greenmail.smtp.SmtpServer;
import com.icegreen.greenmail.store.FolderException;
import com.icegreen.greenmail.user.GreenMailUser;
import com.icegreen.greenmail.user.UserException;
import com.icegreen.greenmail.util.GreenMail;
import com.icegreen.greenmail.util.ServerSetup;
import io.orderflow.ops.load.WallClock;
import jakarta.mail.MessagingException;
import java.io.UncheckedIOException;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadInfo;
import java.lang.management.ThreadMXBean;
import java.net.Socket;
import java.net.SocketException;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A real SMTP server (GreenMail, the test suites' server) that notes when it accepted each mail: the benchmarks'
 * mail provider, and the end of an order's accepted -> mailed delay.
 *
 * <p>GreenMail parses every message and delivers it to a mailbox before it answers the end of the data with {@code
 * 250}; this class sits in that delivery ({@link com.icegreen.greenmail.user.MessageDeliveryHandler}), so the moment
 * it notes ({@link WallClock}, the load generator's clock) is the server's acceptance, within microseconds of the
 * {@code 250} leaving. A mail is told by its {@code Message-ID}, which notification-service sets to {@code
 * <eventId@orderflow>} (the id of the order event it announces, the same on a resend): the first acceptance of each id
 * is kept, a later one is counted as a resend, and a mail without such an id as unidentified.
 *
 * <p>Every mail goes to one mailbox whatever its recipient (no account per customer), which a thread empties once a
 * second: a run of minutes at thousands of mails a second would otherwise keep every message in the heap. Only the
 * acceptance times stay (a map of event ids, about 100 bytes a mail).
 *
 * <p>Its cost is real and counted apart: a thread per connection that parses and stores each message. {@link
 * #cpuSeconds} is the CPU of its threads (the server's, its connections' and the emptying thread), live ones at the
 * moment of reading; a connection that closed takes its CPU with it, and the notification service's mailer keeps its
 * connections open.
 *
 * <p>Thread-safe.
 */
public final class SmtpReceiver implements AutoCloseable {
    private static final Pattern EVENT_MESSAGE_ID =
            Pattern.compile("<([0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12})@[^>]*>");
    private static final long EMPTY_EVERY_MILLIS = 1000;

    private final GreenMail greenMail;
    private final Map<UUID, Long> acceptedAtMicros = new ConcurrentHashMap<>();
    private final AtomicLong accepted = new AtomicLong();
    private final AtomicLong resent = new AtomicLong();
    private final AtomicLong unidentified = new AtomicLong();
    private final String threadPrefix;
    private final Thread emptier;
    private volatile boolean closing;
    private volatile String lastFailure;

    private SmtpReceiver(GreenMail greenMail) throws UserException {
        this.greenMail = greenMail;
        GreenMailUser mailbox = greenMail.getUserManager().createUser("bench@orderflow.test", "bench", "bench");
        greenMail.getUserManager().setMessageDeliveryHandler((message, address) -> {
            note(message);
            return mailbox;
        });
        this.threadPrefix = greenMail.getSmtp().getName();
        this.emptier =
                Thread.ofPlatform().name(threadPrefix + "-emptier").daemon().unstarted(this::emptyMailbox);
    }

    /** Starts a server on a free port of {@code host}. */
    public static SmtpReceiver start(String host) throws UserException {
        // Its connections answer at once (TCP_NODELAY): GreenMail's replies otherwise wait ~43 ms each for the
        // client's delayed acknowledgement, which capped the sender's pool of ten connections near 45 mails/s.
        GreenMail greenMail = new GreenMail(new ServerSetup(0, host, ServerSetup.PROTOCOL_SMTP)) {
            @Override
            protected Map<String, AbstractServer> createServices(ServerSetup[] setups, Managers managers) {
                return Map.of(ServerSetup.PROTOCOL_SMTP, new SmtpServer(setups[0], managers) {
                    @Override
                    protected ProtocolHandler createProtocolHandler(Socket connection) {
                        try {
                            connection.setTcpNoDelay(true);
                        } catch (SocketException e) {
                            throw new UncheckedIOException(e);
                        }
                        return super.createProtocolHandler(connection);
                    }
                });
            }
        };
        greenMail.start();
        try {
            SmtpReceiver receiver = new SmtpReceiver(greenMail);
            receiver.emptier.start();
            return receiver;
        } catch (UserException | RuntimeException e) {
            greenMail.stop();
            throw e;
        }
    }

    public int port() {
        return greenMail.getSmtp().getPort();
    }

    private void note(MovingMessage message) {
        long at = WallClock.micros();
        accepted.incrementAndGet();
        Optional<UUID> eventId = eventId(message);
        if (eventId.isEmpty()) {
            unidentified.incrementAndGet();
        } else if (acceptedAtMicros.putIfAbsent(eventId.get(), at) != null) {
            resent.incrementAndGet();
        }
    }

    private static Optional<UUID> eventId(MovingMessage message) {
        try {
            String messageId = message.getMessage().getMessageID();
            Matcher matcher = messageId == null ? null : EVENT_MESSAGE_ID.matcher(messageId.trim());
            return matcher != null && matcher.matches()
                    ? Optional.of(UUID.fromString(matcher.group(1)))
                    : Optional.empty();
        } catch (MessagingException e) {
            return Optional.empty();
        }
    }

    /**
     * The wall time, in microseconds, at which the server accepted the first mail whose {@code Message-ID} names
     * {@code eventId}; null if none arrived.
     */
    public Long acceptedAtMicros(UUID eventId) {
        return acceptedAtMicros.get(eventId);
    }

    /** Mails accepted so far, resends and unidentified ones included. */
    public long accepted() {
        return accepted.get();
    }

    /** Distinct event ids mailed so far. */
    public long eventsMailed() {
        return acceptedAtMicros.size();
    }

    /** Mails whose event id had been mailed already. */
    public long resent() {
        return resent.get();
    }

    /** Mails without a {@code Message-ID} of the form {@code <eventId@...>}. */
    public long unidentified() {
        return unidentified.get();
    }

    /** CPU seconds of the server's live threads so far; NaN where the JVM does not measure thread CPU time. */
    public double cpuSeconds() {
        ThreadMXBean threads = ManagementFactory.getThreadMXBean();
        if (!threads.isThreadCpuTimeSupported()) {
            return Double.NaN;
        }
        long nanos = 0;
        for (ThreadInfo thread : threads.getThreadInfo(threads.getAllThreadIds())) {
            if (thread != null && thread.getThreadName().startsWith(threadPrefix)) {
                nanos += Math.max(0, threads.getThreadCpuTime(thread.getThreadId()));
            }
        }
        return nanos / 1e9;
    }

    /** Why emptying the mailbox last failed, if it did. */
    public String lastFailure() {
        return lastFailure;
    }

    private void emptyMailbox() {
        while (!closing) {
            try {
                Thread.sleep(EMPTY_EVERY_MILLIS); // the messages of the last second are kept until then
                greenMail.purgeEmailFromAllMailboxes();
            } catch (InterruptedException e) {
                return;
            } catch (FolderException | RuntimeException e) {
                lastFailure = e.toString();
            }
        }
    }

    @Override
    public void close() {
        closing = true;
        emptier.interrupt();
        greenMail.stop();
    }
}
