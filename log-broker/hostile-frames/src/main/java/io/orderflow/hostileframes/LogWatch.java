package io.orderflow.hostileframes;

import java.io.IOException;
import java.io.InputStream;
import java.io.RandomAccessFile;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.Locale;
import java.util.function.LongSupplier;

/**
 * Watches a broker's log, as it grows, for a word ({@code OutOfMemoryError}): how often it appears, and how many
 * hostile frames had been sent when it first did. Reads only what was appended since its last look, twice a second,
 * so a log of gigabytes costs one pass. A mention split across two reads is still found (the last bytes of each read
 * are kept for the next). Thread-safe: one watching thread; {@link #stop()} from another.
 */
final class LogWatch implements AutoCloseable {
    private static final long EVERY_MILLIS = 500;
    private static final int LINE_LIMIT = 400;

    /** What the watch saw: mentions, the frames sent when it first saw one (or -1), and the first line that had it. */
    record Sighting(long mentions, long firstAtFrame, String firstLine) {
        String describe() {
            return mentions == 0
                    ? "none"
                    : String.format(Locale.ROOT, "%,d mentions, the first at frame %,d", mentions, firstAtFrame);
        }
    }

    private final Path log;
    private final byte[] word;
    private final LongSupplier frames;
    private final Thread thread;
    private InputStream in;
    private byte[] carry = new byte[0];
    private long offset;
    private long mentions;
    private long firstAtFrame = -1;
    private long firstOffset = -1;
    private volatile boolean stopping;

    private LogWatch(Path log, String word, LongSupplier frames) {
        this.log = log;
        this.word = word.getBytes(StandardCharsets.UTF_8);
        this.frames = frames;
        this.thread = new Thread(this::watch, "log-watch-" + log.getFileName());
        this.thread.setDaemon(true);
    }

    /** Starts watching {@code log} for {@code word}; {@code frames} tells how many frames were sent so far. */
    static LogWatch start(Path log, String word, LongSupplier frames) {
        LogWatch watch = new LogWatch(log, word, frames);
        watch.thread.start();
        return watch;
    }

    /** Stops watching after one last look at the whole log, and says what it saw. */
    Sighting stop() {
        stopping = true;
        thread.interrupt();
        try {
            thread.join();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        synchronized (this) {
            look();
            closeInput();
            return new Sighting(mentions, firstAtFrame, firstOffset < 0 ? null : lineAt(firstOffset));
        }
    }

    @Override
    public void close() {
        if (thread.isAlive()) {
            stop();
        }
    }

    private void watch() {
        while (!stopping) {
            synchronized (this) {
                look();
            }
            try {
                Thread.sleep(EVERY_MILLIS);
            } catch (InterruptedException e) {
                return;
            }
        }
    }

    /** Scans what was appended since the last look. */
    private void look() {
        try {
            if (in == null) {
                if (!Files.exists(log)) {
                    return;
                }
                in = Files.newInputStream(log);
            }
            byte[] chunk = new byte[1 << 20];
            int n;
            while ((n = in.read(chunk)) > 0) {
                byte[] window = new byte[carry.length + n];
                System.arraycopy(carry, 0, window, 0, carry.length);
                System.arraycopy(chunk, 0, window, carry.length, n);
                long windowStart = offset - carry.length;
                for (int i = 0; i + word.length <= window.length; i++) {
                    if (matchesAt(window, i)) {
                        mentions++;
                        if (firstOffset < 0) {
                            firstOffset = windowStart + i;
                            firstAtFrame = frames.getAsLong();
                        }
                        i += word.length - 1;
                    }
                }
                int keep = Math.min(word.length - 1, window.length);
                carry = Arrays.copyOfRange(window, window.length - keep, window.length);
                offset += n;
            }
        } catch (IOException e) {
            // the log is being rotated or truncated: look again next time
        }
    }

    private boolean matchesAt(byte[] window, int at) {
        for (int j = 0; j < word.length; j++) {
            if (window[at + j] != word[j]) {
                return false;
            }
        }
        return true;
    }

    /** The line around {@code position}, at most {@link #LINE_LIMIT} characters of it. */
    private String lineAt(long position) {
        try (RandomAccessFile file = new RandomAccessFile(log.toFile(), "r")) {
            long from = Math.max(0, position - LINE_LIMIT / 2);
            file.seek(from);
            byte[] bytes = new byte[LINE_LIMIT];
            int n = file.read(bytes);
            String text = new String(bytes, 0, Math.max(0, n), StandardCharsets.UTF_8);
            int at = (int) (position - from);
            int start = text.lastIndexOf('\n', Math.min(at, text.length() - 1)) + 1;
            int end = text.indexOf('\n', at);
            return text.substring(start, end < 0 ? text.length() : end).strip();
        } catch (IOException e) {
            return "(cannot read " + log + ": " + e.getMessage() + ")";
        }
    }

    private void closeInput() {
        if (in != null) {
            try {
                in.close();
            } catch (IOException e) {
                // read only
            }
        }
    }
}
