package io.orderflow.broker.group;

import java.util.EnumSet;
import java.util.Locale;
import java.util.Optional;
import java.util.Set;

/**
 * The states of a classic group, named on the wire exactly as Kafka names them (DescribeGroups, ListGroups,
 * {@code kafka-consumer-groups --state}).
 *
 * <p>Transitions, as Kafka's coordinator makes them:
 * <ul>
 *   <li>Empty → PreparingRebalance: a member joins.
 *   <li>PreparingRebalance → CompletingRebalance: every member has rejoined, or the rebalance timeout passed
 *       (members that did not rejoin are dropped); → Empty if nobody is left.
 *   <li>CompletingRebalance → Stable: the leader's SyncGroup brought the assignment.
 *   <li>CompletingRebalance or Stable → PreparingRebalance: a member joins with new metadata, the leader
 *       rejoins, a member leaves or its session expires.
 * </ul>
 *
 * Dead is terminal: the group was deleted (DeleteGroups, or its offsets expired while Empty).
 */
public enum GroupState {
    /** No members; offsets may remain. Simple (manual-assignment) consumers and admin tools commit here. */
    EMPTY("Empty"),
    /** Members are (re)joining; JoinGroup requests are parked until all have joined or the timeout. */
    PREPARING_REBALANCE("PreparingRebalance"),
    /** The generation is chosen; waiting for the leader's SyncGroup with the assignment. */
    COMPLETING_REBALANCE("CompletingRebalance"),
    /** Every member has its assignment and heartbeats. */
    STABLE("Stable"),
    /** Deleted; kept only until the last reference goes. */
    DEAD("Dead");

    private final String kafkaName;

    GroupState(String kafkaName) {
        this.kafkaName = kafkaName;
    }

    /** The name Kafka clients and tools show and filter by, e.g. {@code PreparingRebalance}. */
    public String kafkaName() {
        return kafkaName;
    }

    /** Parses a ListGroups states filter entry, case-insensitively, as Kafka does. */
    public static Optional<GroupState> parse(String name) {
        String wanted = name.trim().toLowerCase(Locale.ROOT);
        for (GroupState state : values()) {
            if (state.kafkaName.toLowerCase(Locale.ROOT).equals(wanted)) {
                return Optional.of(state);
            }
        }
        return Optional.empty();
    }

    /** The states a group may be in just before it enters this one. */
    Set<GroupState> validPreviousStates() {
        return switch (this) {
            case EMPTY -> EnumSet.of(PREPARING_REBALANCE);
            case PREPARING_REBALANCE -> EnumSet.of(EMPTY, COMPLETING_REBALANCE, STABLE);
            case COMPLETING_REBALANCE -> EnumSet.of(PREPARING_REBALANCE);
            case STABLE -> EnumSet.of(COMPLETING_REBALANCE);
            case DEAD -> EnumSet.allOf(GroupState.class);
        };
    }

    @Override
    public String toString() {
        return kafkaName;
    }
}
