package io.orderflow.broker.network;

import java.util.ArrayDeque;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.BooleanSupplier;

/**
 * The bytes of requests being read and handled, broker-wide: Kafka's {@code queued.max.request.bytes}, bounded by
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
 * <p>A reservation is released once the request has been handled (its answer may still be on its way out). Answers
 * are not counted: a Fetch's records go from the log file to the socket ({@code FileRegion}).
 *
 * <p>Thread-safe: connections reserve and release on their own threads. A small frame's reservation and every release
 * are lock-free counter updates, so most requests never take the lock; only large frames queue on it.
 */
public final class RequestMemory {
    /** Frames up to this size never wait for the budget. */
    public static final int SMALL_FRAME_BYTES = 16 * 1024;

    /** How often a waiting frame checks that its connection is still open. */
    private static final long RECHECK_MS = 100;

    private final long budget;
    /** Tickets of the large frames waiting, first come first; guarded by this. */
    private final ArrayDeque<Object> waiting = new ArrayDeque<>();
    /** Small frames come and go without the lock: most requests never touch it. */
    private final AtomicLong reserved = new AtomicLong();

    private final AtomicLong mostReserved = new AtomicLong();
    private volatile int waitingFrames;

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
        synchronized (this) {
            Object ticket = new Object();
            waiting.addLast(ticket);
            waitingFrames = waiting.size();
            try {
                while (waiting.peekFirst() != ticket || reserved.get() + bytes > budget) {
                    if (!stillWanted.getAsBoolean()) {
                        return false;
                    }
                    wait(RECHECK_MS);
                }
                add(bytes);
                return true;
            } finally {
                waiting.remove(ticket);
                waitingFrames = waiting.size();
                notifyAll();
            }
        }
    }

    /** Gives back what {@link #reserve} took for a frame of {@code bytes}; wakes the waiting frames, if any. */
    void release(int bytes) {
        reserved.addAndGet(-bytes);
        if (waitingFrames > 0) {
            synchronized (this) {
                notifyAll();
            }
        }
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
        return waitingFrames;
    }

    private void add(int bytes) {
        long now = reserved.addAndGet(bytes);
        mostReserved.accumulateAndGet(now, Math::max);
    }
}
