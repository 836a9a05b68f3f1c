package io.orderflow.ops.replay;

import java.time.Duration;
import java.util.List;

/**
 * The group still had members when the wait for it to be empty ran out, so nothing was reset: a broker refuses (or,
 * worse, a live member overwrites) offsets reset under a running consumer. Carries the group, its state, each member
 * as {@code kafka-consumer-groups --describe --members} shows it and how long the wait was. The message says why
 * members linger: a consumer that stopped left at once; one that was killed stays until its session times out.
 */
public final class GroupStillActiveException extends ReplayException {
    private static final long serialVersionUID = 1L;

    private final String group;
    private final String state;
    private final List<String> members;
    private final Duration waited;

    public GroupStillActiveException(String group, String state, List<String> members, Duration waited) {
        super("consumer group " + group + " still has " + members.size()
                + (members.size() == 1 ? " member" : " members") + " after " + seconds(waited) + " (state " + state
                + "): " + String.join("; ", members) + ". Nothing was reset. A consumer that stopped has left the"
                + " group; one that was killed stays a member until its session times out (session.timeout.ms: 10 s"
                + " on ./run-platform, 45 s by kafka-clients' default). Stop every instance of the service, or wait"
                + " longer (--empty-timeout), and run the replay again.");
        this.group = group;
        this.state = state;
        this.members = List.copyOf(members);
        this.waited = waited;
    }

    public String group() {
        return group;
    }

    public String state() {
        return state;
    }

    public List<String> members() {
        return members;
    }

    public Duration waited() {
        return waited;
    }

    private static String seconds(Duration duration) {
        return duration.toMillis() % 1000 == 0
                ? duration.toSeconds() + " s"
                : String.format(java.util.Locale.ROOT, "%.1f s", duration.toMillis() / 1000.0);
    }
}
