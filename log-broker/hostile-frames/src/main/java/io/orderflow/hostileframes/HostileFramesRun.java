package io.orderflow.hostileframes;

import io.orderflow.frames.RequestCorpus.Target;
import io.orderflow.hostileframes.HostileConnection.Outcome;
import io.orderflow.hostileframes.WireFrame.Kind;
import io.orderflow.property.Gen;
import java.io.IOException;
import java.io.PrintStream;
import java.net.InetSocketAddress;
import java.nio.channels.Selector;
import java.time.Duration;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.Supplier;
import org.apache.kafka.common.Uuid;

/**
 * One run of hostile frames against one broker, reached only over TCP at its bootstrap address.
 *
 * <p>Before: three topics of one partition each are created with the admin client, {@code PREFIX-known}, {@code
 * PREFIX-target} and {@code PREFIX-round-trip}; {@link KnownRecords} are produced to the first, acks=all, each
 * acknowledged. The second is the topic the corpus's Produce, Fetch, ListOffsets and Metadata requests name (by name,
 * and by id from the versions that use ids), so that requests which survive their mutation reach the broker's storage.
 * The third waits for the {@link RoundTrip}: made before the frames, because mutated CreateTopics requests may fill
 * a broker's partition limit ({@code max.partitions} on ours), after which a new topic is refused by design.
 *
 * <p>The hostile connections are made from an address of their own ({@code --hostile-address}), the probes and every
 * checking client from the machine's usual one: a broker that bounds connections per address
 * ({@code max.connections.per.ip}) refuses the hostile client once it holds its share, and must still serve the
 * others, which is what the probes measure.
 *
 * <p>During: {@code --connections} sender threads, each with its own {@link HostileFrameSource} seeded from the run's
 * seed and the thread's index, and its own {@link HostileConnection}. A sender claims the next frame number, draws a
 * frame, writes it, and reads nothing but what the broker sends (discarded). When the broker closes the connection,
 * the sender opens a new one and writes the frame again there (up to three connections); after a lying size prefix it
 * hangs up itself and opens a new one. After each frame it waits a little for the broker to answer or close
 * ({@code --reaction-wait-ms}, see {@link HostileConnection}), so that the frames sent are frames the broker read. Whichever sender claims a multiple of {@code --probe-every} first takes a
 * {@link LivenessProbe} on a fresh connection, while the others go on sending. Sending stops after {@code --frames}
 * frames, after {@code --give-up-after} failed probes in a row, or when no frame could be written for a minute (the
 * broker is gone; meanwhile a probe is taken every ten seconds, since no sender reaches the next multiple). A last
 * probe follows the last frame.
 *
 * <p>After: the known records are read back ({@link KnownRecords#readBack}), a {@link RoundTrip} runs with a new
 * producer and consumer, and the broker's topics are counted.
 *
 * <p>The frames each connection sends depend only on the seed; how they interleave across connections, and so where
 * exactly the probes fall, depends on timing. A progress line is printed every ten seconds. Not reusable: one
 * {@link #execute()} per instance; {@link #framesSent()} may be read from any thread meanwhile.
 */
public final class HostileFramesRun {
    private static final Duration CONNECT_TIMEOUT = Duration.ofSeconds(5);
    private static final Duration STALL_TIMEOUT = Duration.ofSeconds(10);
    private static final Duration NOTHING_SENT_LIMIT = Duration.ofMinutes(1);
    private static final Duration PROGRESS_EVERY = Duration.ofSeconds(10);
    private static final int ATTEMPTS_PER_FRAME = 3;

    private final Workload workload;
    private final Clients clients;
    private final InetSocketAddress address;
    /** Where the hostile connections come from: {@code --hostile-address}, any port. */
    private final InetSocketAddress from;

    private final LivenessProbe probe;
    private final String label;
    private final PrintStream out;
    private final Supplier<String> progressNote;

    private final AtomicLong claimed = new AtomicLong();
    private final LongAdder sent = new LongAdder();
    private final LongAdder unsent = new LongAdder();
    private final Map<Kind, LongAdder> sentByKind = new EnumMap<>(Kind.class);
    private final LongAdder opened = new LongAdder();
    private final LongAdder closedByBroker = new LongAdder();
    private final LongAdder hangUps = new LongAdder();
    private final LongAdder stalled = new LongAdder();
    private final LongAdder connectFailures = new LongAdder();
    private final LongAdder bytesSent = new LongAdder();
    private final LongAdder bytesReceived = new LongAdder();
    private final ProbeLatencies probes = new ProbeLatencies();
    private final AtomicReference<String> stoppedEarly = new AtomicReference<>();
    private final AtomicReference<String> lastConnectFailure = new AtomicReference<>("none");
    private volatile boolean stopping;

    /**
     * @param bootstrap {@code host:port} of the broker
     * @param label what progress lines start with (the broker's name)
     * @param progressNote appended to each progress line (the broker's memory, say); may return an empty string
     */
    public HostileFramesRun(
            Workload workload, String bootstrap, String label, PrintStream out, Supplier<String> progressNote) {
        workload.check();
        this.workload = workload;
        this.clients = new Clients(bootstrap);
        this.address = address(bootstrap);
        this.from = new InetSocketAddress(workload.hostileAddress, 0);
        this.probe = new LivenessProbe(address, Duration.ofMillis(workload.probeTimeoutMillis));
        this.label = label;
        this.out = out;
        this.progressNote = progressNote;
        for (Kind kind : Kind.values()) {
            sentByKind.put(kind, new LongAdder());
        }
    }

    /** Hostile frames written whole so far. */
    public long framesSent() {
        return sent.sum();
    }

    public HostileFramesResult execute() throws Exception {
        long start = System.nanoTime();
        String prefix = workload.topicPrefix;
        KnownRecords known = KnownRecords.draw(prefix + "-known", workload.records, new Gen(workload.seed));
        clients.createTopic(prefix + "-known");
        Uuid targetId = clients.createTopic(prefix + "-target");
        clients.createTopic(prefix + "-round-trip");
        known.produce(clients);
        var corpus = HostileFrameSource.Corpus.of(new Target(prefix + "-target", targetId), prefix + "-created");
        out.printf(
                Locale.ROOT,
                "%s: %,d known records produced to %s-known in %.1f s; %,d valid requests to mutate; sending %,d frames"
                        + " over %d connections, a probe every %,d%n",
                label,
                known.size(),
                prefix,
                (System.nanoTime() - start) / 1e9,
                corpus.size(),
                workload.frames,
                workload.connections,
                workload.probeEvery);

        long sendingStart = System.nanoTime();
        ScheduledExecutorService progress = Executors.newSingleThreadScheduledExecutor(r -> {
            Thread thread = new Thread(r, "hostile-frames-progress");
            thread.setDaemon(true);
            return thread;
        });
        progress.scheduleAtFixedRate(
                new ProgressLine(sendingStart),
                PROGRESS_EVERY.toMillis(),
                PROGRESS_EVERY.toMillis(),
                TimeUnit.MILLISECONDS);
        List<Thread> senders = new ArrayList<>();
        for (int i = 0; i < workload.connections; i++) {
            int index = i;
            Thread sender = new Thread(() -> send(corpus, index), "hostile-sender-" + i);
            sender.start();
            senders.add(sender);
        }
        try {
            for (Thread sender : senders) {
                sender.join();
            }
        } finally {
            stopping = true;
            progress.shutdownNow();
        }
        Duration sending = Duration.ofNanos(System.nanoTime() - sendingStart);
        takeProbe(sent.sum());
        out.printf(
                Locale.ROOT,
                "%s: %,d frames sent in %.1f s; reading the known records back%n",
                label,
                sent.sum(),
                sending.toMillis() / 1e3);

        KnownRecords.Check records = known.readBack(clients, Duration.ofSeconds(60));
        RoundTrip.Outcome roundTrip = RoundTrip.check(clients, prefix + "-round-trip", Duration.ofSeconds(30));
        int topics;
        try {
            topics = clients.topicCount();
        } catch (Exception e) {
            topics = -1;
        }
        Map<Kind, Long> byKind = new EnumMap<>(Kind.class);
        sentByKind.forEach((kind, count) -> byKind.put(kind, count.sum()));
        return new HostileFramesResult(
                clients.bootstrap(),
                workload.frames,
                sent.sum(),
                unsent.sum(),
                byKind,
                opened.sum(),
                closedByBroker.sum(),
                hangUps.sum(),
                stalled.sum(),
                connectFailures.sum(),
                bytesSent.sum(),
                bytesReceived.sum(),
                probes.summary(),
                records,
                roundTrip,
                topics,
                stoppedEarly.get(),
                sending,
                Duration.ofNanos(System.nanoTime() - start));
    }

    /** One sender thread: claims frame numbers until every frame is claimed or the run stops. */
    private void send(HostileFrameSource.Corpus corpus, int index) {
        HostileFrameSource source =
                new HostileFrameSource(corpus, new Gen(connectionSeed(index)), workload.maxClaimedBytes);
        try (Selector selector = Selector.open()) {
            HostileConnection connection = null;
            try {
                while (!stopping) {
                    long number = claimed.getAndIncrement();
                    if (number >= workload.frames) {
                        return;
                    }
                    if (number > 0 && number % workload.probeEvery == 0) {
                        takeProbe(number);
                    }
                    connection = sendOne(source.next(), connection, selector);
                }
            } finally {
                close(connection); // before its selector closes
            }
        } catch (IOException e) {
            stop("no selector for sender " + index + ": " + e);
        }
    }

    /**
     * Writes {@code frame}, on a new connection if the broker had closed this one before it got the frame; returns the
     * connection to go on with, null when the next frame needs a new one.
     */
    private HostileConnection sendOne(WireFrame frame, HostileConnection connection, Selector selector) {
        for (int attempt = 1; attempt <= ATTEMPTS_PER_FRAME; attempt++) {
            if (connection == null) {
                connection = connect(selector);
                if (connection == null) {
                    return null; // stopping
                }
            }
            Outcome outcome = connection.send(frame.bytes(), frame.hangUp() ? 0 : workload.reactionWaitMillis);
            switch (outcome) {
                case WRITTEN, WRITTEN_THEN_CLOSED -> {
                    sent.increment();
                    sentByKind.get(frame.kind()).increment();
                    bytesSent.add(frame.bytes().length);
                    if (outcome == Outcome.WRITTEN && !frame.hangUp()) {
                        return connection;
                    }
                    (outcome == Outcome.WRITTEN ? hangUps : closedByBroker).increment();
                    close(connection);
                    return null;
                }
                case CLOSED_BEFORE -> closedByBroker.increment();
                case STALLED -> stalled.increment();
            }
            close(connection);
            connection = null;
        }
        unsent.increment();
        return null;
    }

    private HostileConnection connect(Selector selector) {
        while (!stopping) {
            try {
                HostileConnection connection =
                        HostileConnection.open(from, address, selector, CONNECT_TIMEOUT, STALL_TIMEOUT);
                opened.increment();
                return connection;
            } catch (IOException e) {
                connectFailures.increment();
                lastConnectFailure.set(e.toString());
                try {
                    Thread.sleep(100);
                } catch (InterruptedException interrupted) {
                    Thread.currentThread().interrupt();
                    stop("interrupted");
                }
            }
        }
        return null;
    }

    private void close(HostileConnection connection) {
        if (connection != null) {
            bytesReceived.add(connection.bytesReceived());
            connection.close();
        }
    }

    private void takeProbe(long atFrame) {
        LivenessProbe.Outcome outcome = probe.probe(atFrame);
        probes.record(outcome);
        if (!outcome.ok()) {
            out.printf(Locale.ROOT, "%s: probe at frame %,d FAILED: %s%n", label, atFrame, outcome.failure());
            if (probes.failedInARow() >= workload.giveUpAfter) {
                stop(workload.giveUpAfter + " probes in a row failed, the last at frame "
                        + String.format(Locale.ROOT, "%,d", atFrame));
            }
        }
    }

    private void stop(String why) {
        stoppedEarly.compareAndSet(null, why);
        stopping = true;
    }

    /** Connection {@code index}'s seed: the run's, spread so that neighbouring indexes draw unrelated frames. */
    private long connectionSeed(int index) {
        return workload.seed + 0x9E37_79B9_7F4A_7C15L * (index + 1);
    }

    private static InetSocketAddress address(String bootstrap) {
        String first = bootstrap.split(",")[0].trim();
        int colon = first.lastIndexOf(':');
        if (colon < 0) {
            throw new IllegalArgumentException("A bootstrap address is host:port, got '" + bootstrap + "'");
        }
        return new InetSocketAddress(first.substring(0, colon), Integer.parseInt(first.substring(colon + 1)));
    }

    /**
     * Prints how far the run is; takes a probe when no frame was sent since the last line, and stops the run when
     * none could be sent for a minute.
     */
    private final class ProgressLine implements Runnable {
        private final long start;
        private long lastSent = -1;
        private long lastChange = System.nanoTime();

        ProgressLine(long start) {
            this.start = start;
        }

        @Override
        public void run() {
            long now = System.nanoTime();
            long frames = sent.sum();
            if (frames != lastSent) {
                lastSent = frames;
                lastChange = now;
            } else if (now - lastChange > NOTHING_SENT_LIMIT.toNanos()) {
                stop("no frame could be sent for " + NOTHING_SENT_LIMIT.toSeconds() + " s; last connect failure: "
                        + lastConnectFailure.get());
            } else {
                takeProbe(frames); // no frame goes through, so no sender reaches the next probe: probe from here
            }
            ProbeLatencies.Summary summary = probes.summary();
            String note = progressNote.get();
            out.printf(
                    Locale.ROOT,
                    "%s: %,d frames (%.1f%%), %,.0f frames/s, %,d closed by the broker, probes %,d ok %,d failed,"
                            + " p99 %.2f ms%s%n",
                    label,
                    frames,
                    100.0 * frames / Math.max(1, workload.frames),
                    frames / Math.max(1e-9, (now - start) / 1e9),
                    closedByBroker.sum(),
                    summary.ok(),
                    summary.failed(),
                    summary.p99Millis(),
                    note.isEmpty() ? "" : "; " + note);
        }
    }
}
