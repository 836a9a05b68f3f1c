package io.orderflow.broker.network;

import java.util.ArrayDeque;
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
 * <p>Thread-safe: connections reserve and release on their own threads.
 */
public final class RequestMemory {
    /** Frames up to this size never wait for the budget. */
    public static final int SMALL_FRAME_BYTES = 16 * 1024;

    /** How often a waiting frame checks that its connection is still open. */
    private static final long RECHECK_MS = 100;

    private final long budget;
    private final ArrayDeque<Object> waiting = new ArrayDeque<>();
    private long reserved;
    private long mostReserved;

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
        synchronized (this) {
            if (bytes <= SMALL_FRAME_BYTES) {
                add(bytes);
                return true;
            }
            Object ticket = new Object();
            waiting.addLast(ticket);
            try {
                while (waiting.peekFirst() != ticket || reserved + bytes > budget) {
                    if (!stillWanted.getAsBoolean()) {
                        return false;
                    }
                    wait(RECHECK_MS);
                }
                add(bytes);
                return true;
            } finally {
                waiting.remove(ticket);
                notifyAll();
            }
        }
    }

    /** Gives back what {@link #reserve} took for a frame of {@code bytes}. */
    synchronized void release(int bytes) {
        reserved -= bytes;
        notifyAll();
    }

    /** Bytes reserved now. */
    public synchronized long reserved() {
        return reserved;
    }

    /** The most bytes reserved at once since the broker started. */
    public synchronized long mostReserved() {
        return mostReserved;
    }

    /** Frames waiting for room now. */
    public synchronized int waitingFrames() {
        return waiting.size();
    }

    private void add(int bytes) {
        reserved += bytes;
        mostReserved = Math.max(mostReserved, reserved);
    }
}
