package io.orderflow.broker.handler;

import java.nio.ByteBuffer;

/**
 * The bytes of one request frame, handed to the {@link RequestDispatcher} once. The dispatcher {@link #take takes}
 * them to decode them, after which nothing here refers to them any more, and says when they are no longer needed
 * ({@link #release}), so that the connection gives their memory back to the broker's request memory before a long
 * wait instead of after it: a Fetch that long-polls, or a JoinGroup that waits for the rebalance, holds its decoded
 * request, not its frame (as in Kafka, which releases a request's buffer once it is parsed). A Produce keeps its
 * frame until it is answered: its records are appended from it.
 *
 * <p>Not thread-safe: one connection thread.
 */
public final class RequestFrame {
    private ByteBuffer bytes;
    private final int size;
    private final Runnable release;
    private boolean released;

    public RequestFrame(ByteBuffer bytes, Runnable release) {
        this.bytes = bytes;
        this.size = bytes.remaining();
        this.release = release;
    }

    /** A frame whose memory nobody accounts for (tests, tools). */
    public static RequestFrame unaccounted(ByteBuffer bytes) {
        return new RequestFrame(bytes, () -> {});
    }

    /** The frame's size in bytes. */
    public int size() {
        return size;
    }

    /** The API key in the frame's first two bytes, or -1 if it is too short to have one or was taken. */
    short apiKey() {
        return bytes == null || bytes.remaining() < 2 ? -1 : bytes.getShort(bytes.position());
    }

    /** The bytes, once; this frame forgets them. */
    ByteBuffer take() {
        ByteBuffer taken = bytes;
        bytes = null;
        if (taken == null) {
            throw new IllegalStateException("the frame was already taken");
        }
        return taken;
    }

    /** Gives the frame's memory back, once; later calls do nothing. */
    public void release() {
        if (!released) {
            released = true;
            bytes = null;
            release.run();
        }
    }
}
