package io.orderflow.ops.replay;

import java.util.Map;
import java.util.stream.Collectors;
import org.apache.kafka.common.TopicPartition;

/**
 * The broker accepted the new offsets, but reading the group's committed offsets back found others: a consumer
 * joined and committed in between, or the broker lost the commit. The replay is then not reported as done. Carries
 * the group and, for each partition that differs, the offset set and the one found ({@code -1}: none).
 */
public final class ResetNotVerifiedException extends ReplayException {
    private static final long serialVersionUID = 1L;

    private final String group;
    private final Map<TopicPartition, Long> expected;
    private final Map<TopicPartition, Long> found;

    public ResetNotVerifiedException(
            String group, Map<TopicPartition, Long> expected, Map<TopicPartition, Long> found) {
        super("the committed offsets of consumer group " + group + " read back after the reset are not the ones set: "
                + expected.keySet().stream()
                        .map(p -> p + " set to " + expected.get(p) + ", found " + found.getOrDefault(p, -1L))
                        .collect(Collectors.joining("; "))
                + ". Is a consumer of the group running again?");
        this.group = group;
        this.expected = Map.copyOf(expected);
        this.found = Map.copyOf(found);
    }

    public String group() {
        return group;
    }

    public Map<TopicPartition, Long> expected() {
        return expected;
    }

    public Map<TopicPartition, Long> found() {
        return found;
    }
}
