package io.orderflow.broker.network;

import java.util.concurrent.ConcurrentLinkedDeque;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.BooleanSupplier;

/**
 * The bytes of request frames being read and decoded, broker-wide: Kafka's {@code queued.max.request.bytes}, bounded by
 * default (a quarter of the heap) where Kafka leaves it unbounded. Shared by every listener's connections.
 *
 * <p>Design. A frame's size prefix arrives first, and a client may lie in it. The buffer that receives the body grows
 * with the bytes that arrive ({@link Connection}), so a lie costs no heap; this budget is what keeps honest and
 * dishonest frames together from outgrowing the heap. A frame larger than {@link #SMALL_FRAME_BYTES} reserves its
 * declared size here before its body is read and waits, first come first served, while the budget has no room; its
 * connection is not read meanwhile, so TCP's window stops the client (back-pressure). Reserving the whole frame at
 * once, not chunk by chunk as it arrives, is what keeps two half-read frames from each waiting for the other's bytes:
 * a frame that holds its reservation is never made to wait again. Small frames (every ApiVersions, Heartbeat,
 * Metadata, OffsetCommit and most Fetches) are counted but never wait, so clients keep being answered while large
 * frames queue; they can overdraw the budget by at most one small frame per connection. A frame larger than the whole
 * budget could never be read and closes its connection ({@link #fits}).
 *
 * <p>A reservation is released once the request has been decoded (a Produce's once answered; see {@code
 * RequestFrame}). Answers are not counted: a Fetch's records go from the log file to the socket ({@code FileRegion}).
 * Only the first frame in line is woken when memory is given back; every waiting frame also checks, ten times a
 * second, whether its connection still wants it ({@link Connection} gives up after {@link #MAX_WAIT}).
 *
 * <p>Thread-safe: connections reserve and release on their own threads, without a common lock: counters and a
 * concurrent queue of tickets, each waiting frame on its own ticket's monitor.
 */
public final class RequestMemory {
    /** Frames up to this size never wait for the budget. */
    public static final int SMALL_FRAME_BYTES = 16 * 1024;

    /** How often a waiting frame checks that its connection is still open. */
    private static final long RECHECK_MS = 100;

    /**
     * The longest a frame waits for room before its connection is closed. By then a Kafka client has given up on the
     * request anyway ({@code request.timeout.ms} is 30 s by default) and reconnects; meanwhile the waiting connection
     * holds a thread, a socket and a place in {@code max.connections.per.ip}, and a frame that never gets room (one
     * lying frame holding most of the budget while its body trickles in) must not let them pile up.
     */
    public static final java.time.Duration MAX_WAIT = java.time.Duration.ofSeconds(10);

    private final long budget;
    /** Tickets of the large frames waiting, first come first; each waits on its own ticket. */
    private final ConcurrentLinkedDeque<Object> waiting = new ConcurrentLinkedDeque<>();
    /** Small frames come and go without the lock: most requests never touch it. */
    private final AtomicLong reserved = new AtomicLong();

    private final AtomicLong mostReserved = new AtomicLong();
    private final AtomicInteger waitingFrames = new AtomicInteger();

    /** A budget of {@code budget} bytes; {@link Long#MAX_VALUE}: unbounded. */
    public RequestMemory(long budget) {
        if (budget <= 0) {
            throw new IllegalArgumentException("A request memory budget must be positive, not " + budget);
        }
        this.budget = budget;
    }

    /** {@code queued.max.request.bytes}: -1 unbounded, 0 a quarter of {@code maxHeapBytes}, else that many bytes. */
    public static RequestMemory of(long setting, long maxHeapBytes) {
        if (setting < 0) {
            return new RequestMemory(Long.MAX_VALUE);
        }
        return new RequestMemory(setting == 0 ? Math.max(SMALL_FRAME_BYTES, maxHeapBytes / 4) : setting);
    }

    public long budget() {
        return budget;
    }

    /** Whether a frame of {@code bytes} can ever be reserved. */
    public boolean fits(long bytes) {
        return bytes <= SMALL_FRAME_BYTES || bytes <= budget;
    }

    /**
     * Reserves {@code bytes} for a frame, waiting while a large one does not fit or earlier large ones wait.
     *
     * @return false, with nothing reserved, if {@code stillWanted} turned false while it waited
     */
    boolean reserve(int bytes, BooleanSupplier stillWanted) throws InterruptedException {
        if (!fits(bytes)) {
            throw new IllegalArgumentException("A frame of " + bytes + " bytes exceeds the budget of " + budget);
        }
        if (bytes <= SMALL_FRAME_BYTES) {
            add(bytes);
            return true;
        }
        Object ticket = new Object();
        waiting.addLast(ticket);
        waitingFrames.incrementAndGet();
        try {
            synchronized (ticket) {
                while (waiting.peekFirst() != ticket || !tryAdd(bytes)) {
                    if (!stillWanted.getAsBoolean()) {
                        return false;
                    }
                    ticket.wait(RECHECK_MS);
                }
                return true;
            }
        } finally {
            waiting.remove(ticket);
            waitingFrames.decrementAndGet();
            wakeFirst();
        }
    }

    /** Gives back what {@link #reserve} took for a frame of {@code bytes}; wakes the first waiting frame, if any. */
    void release(int bytes) {
        reserved.addAndGet(-bytes);
        if (waitingFrames.get() > 0) {
            wakeFirst();
        }
    }

    /**
     * Wakes the frame first in line, and only it: the others cannot go before it, so waking them all on every release
     * (a thousand threads fighting for one lock, as under the hostile-frames harness) would only burn the CPU the
     * first one needs.
     */
    private void wakeFirst() {
        Object first = waiting.peekFirst();
        if (first != null) {
            synchronized (first) {
                first.notify();
            }
        }
    }

    /** Adds {@code bytes} if they fit in the budget now. */
    private boolean tryAdd(int bytes) {
        long now;
        do {
            now = reserved.get();
            if (now + bytes > budget) {
                return false;
            }
        } while (!reserved.compareAndSet(now, now + bytes));
        mostReserved.accumulateAndGet(now + bytes, Math::max);
        return true;
    }

    /** Bytes reserved now. */
    public long reserved() {
        return reserved.get();
    }

    /** The most bytes reserved at once since the broker started. */
    public long mostReserved() {
        return mostReserved.get();
    }

    /** Frames waiting for room now. */
    public int waitingFrames() {
        return waitingFrames.get();
    }

    private void add(int bytes) {
        long now = reserved.addAndGet(bytes);
        mostReserved.accumulateAndGet(now, Math::max);
    }
}
