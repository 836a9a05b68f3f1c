package io.orderflow.hostileframes;

/**
 * One hostile frame as it goes on the wire: its bytes, size prefix included, what kind of hostility it is, and
 * whether the harness hangs up after sending it (a lying size prefix whose body never comes).
 */
record WireFrame(Kind kind, byte[] bytes, boolean hangUp) {

    /** The kinds of frame {@link HostileFrameSource} draws, each with its share of the frames in percent. */
    enum Kind {
        /** A valid request with one to four {@code FrameMutation}s, behind an honest size prefix. */
        MUTATED(55),
        /** A valid request whose header names another API key, another version, or both. */
        SWAPPED(15),
        /** The start of one request with the end of another. */
        SPLICED(15),
        /** A valid request behind a size prefix claiming fewer bytes: its rest is read as the next frame. */
        SHORT_SIZE(5),
        /** A size prefix claiming more (up to the most claimed) than the request after it; then the harness hangs up. */
        LONG_SIZE_THEN_HANG_UP(5),
        /** A size prefix claiming more, followed by one to eight whole frames; then the harness hangs up. */
        LONG_SIZE_THEN_MORE_FRAMES(5);

        final int percent;

        Kind(int percent) {
            this.percent = percent;
        }
    }
}
