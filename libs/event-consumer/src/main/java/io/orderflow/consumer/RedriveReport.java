package io.orderflow.consumer;

import java.util.List;

/**
 * What a re-drive found and did: every origin in the dead-letter topic ({@link DeadLetteredOrigin}, in the order of
 * their latest copies), how many records the topic held, and how many origins it copied to the first retry topic now.
 */
public record RedriveReport(List<DeadLetteredOrigin> origins, int records, int copied) {

    public RedriveReport {
        origins = List.copyOf(origins);
    }

    public long count(DeadLetteredOrigin.State state) {
        return origins.stream().filter(o -> o.state() == state).count();
    }
}
