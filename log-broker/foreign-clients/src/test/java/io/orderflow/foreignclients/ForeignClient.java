package io.orderflow.foreignclients;

import java.nio.file.Path;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;

/**
 * A client family that no one here wrote, driven through its own tool or API: producing keyed records, and group
 * members that print what they consume (see {@link ConsumedRecord}) and commit as they go. Each reaches the broker
 * through a {@link Connection}: PLAINTEXT, or SASL_SSL with a login.
 */
interface ForeignClient {
    /** Name and version, as the compatibility table lists it. */
    String name();

    /** A short name for files and topics. */
    String slug();

    /**
     * Sends {@code lines} ("key value") to {@code topic} and waits for the client to exit; it must exit 0, having
     * had every record acknowledged.
     */
    void produce(Connection broker, String topic, List<String> lines, Path dir);

    /**
     * Starts a member of {@code group} subscribed to {@code topic}, from the earliest offset where the group has
     * none committed, committing what it consumed; it runs until {@link ClientProcess#stop()}.
     */
    ClientProcess groupMember(Connection broker, String topic, String group, String memberName, Path dir);

    /** The partitions the member was given at its latest rebalance, if it has been given any yet. */
    default Optional<Set<Integer>> assignment(ClientProcess member) {
        Optional<Set<Integer>> latest = Optional.empty();
        for (String line : member.stdoutLines()) {
            if (line.startsWith("# assigned")) {
                Set<Integer> partitions = new TreeSet<>();
                for (String p : line.substring("# assigned".length()).trim().split(" ")) {
                    if (!p.isEmpty()) {
                        partitions.add(Integer.parseInt(p));
                    }
                }
                latest = Optional.of(partitions);
            }
        }
        return latest;
    }
}
