package io.orderflow.consumer;

import java.util.Optional;

/**
 * One original record as the dead-letter topic holds it, however many copies it has there: the copies' count, the
 * latest copy (its reason is the latest failure), and where re-drive stands for it.
 *
 * @param redriven the dead-letter copy last re-driven for this origin, from the re-drive log
 */
public record DeadLetteredOrigin(RecordOrigin origin, int copies, DeadLetter latest, Optional<RecordOrigin> redriven) {

    /** Where re-drive stands for an origin. */
    public enum State {
        /** Never re-driven: the next re-drive copies it. */
        NOT_REDRIVEN,
        /** Its latest copy was re-driven and nothing failed since. */
        REDRIVEN,
        /** Re-driven, and dead-lettered again since (or by a replay): a re-drive copies it only when asked. */
        FAILED_AFTER_REDRIVE
    }

    public State state() {
        if (redriven.isPresent()) {
            return redriven.get().equals(latest.position()) ? State.REDRIVEN : State.FAILED_AFTER_REDRIVE;
        }
        // No log entry, but the copy says it came from a re-drive (a log lost or deleted): it failed after one.
        return latest.redrives() > 0 ? State.FAILED_AFTER_REDRIVE : State.NOT_REDRIVEN;
    }
}
