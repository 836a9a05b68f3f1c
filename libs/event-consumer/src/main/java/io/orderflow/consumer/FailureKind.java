package io.orderflow.consumer;

import io.orderflow.contracts.UndecodableEventException;
import java.sql.SQLException;
import java.util.Collections;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Set;

/**
 * What a handler's failure says about its event, and so where the record goes: the one place that reads exceptions and
 * SQLSTATEs for {@link EventBatchProcessor}.
 *
 * <p>The cause chain is walked from the outside in, and the first link that decides wins: a
 * {@link RejectedEventException} (the handler says "never") or an {@link UndecodableEventException} (the event cannot
 * be read, such as a {@code MalformedEventException} from a field no consumer can store) is {@link #PERMANENT}; an
 * {@link SQLException} with an SQLSTATE is what {@link #STATES} says of it. A link that decides nothing (a wrapper, an
 * {@code SQLException} without a state) passes on to its cause and, for an {@code SQLException}, to its next exception,
 * where JDBC batches put the server's error. Nothing decisive at all is {@link #TRANSIENT}: unknown failures get the
 * retries, as before.
 *
 * <p>The SQLSTATE table ({@link #STATES}; PostgreSQL's Appendix A, "Error Codes"):
 *
 * <pre>
 * 08     connection exception                   DATABASE    the connection is gone
 * 40001  serialization failure                  DATABASE    the transaction lost a race; run it again
 * 40P01  deadlock detected                      DATABASE    likewise
 * 53300  too many connections                   DATABASE    the server is full, not the event wrong
 * 57P    operator intervention (shutdown, crash, DATABASE    the server is going or coming
 *        cannot connect now)
 * 22     data exception                         PERMANENT   a value of the event does not fit: too long for its column
 *                                                           (22001), out of range (22003), not encodable (22021, 22P05)
 * 23     integrity constraint violation         PERMANENT   a check, not-null, unique or foreign key refuses it
 * 54     program limit exceeded                 PERMANENT   e.g. an index entry too large for its key
 * other                                         TRANSIENT   lock or statement timeouts (55P03, 57014), disk or memory
 *                                                           (53100, 53200), the handler's own bugs
 * </pre>
 *
 * <p>Class 23 has no exception for the idempotency conflict because none reaches a handler: {@link ProcessedEvents}
 * claims an event id with {@code ON CONFLICT DO NOTHING} before the handler runs, so a second claim of an id (a
 * redelivery, or the main and retry channels racing for one event) returns no row rather than raising 23505, and a
 * claim that loses a race at a stricter isolation level fails with 40001, which is {@link #DATABASE}. A unique violation
 * that does reach here comes from a handler's own table and will happen again; a handler that may insert a row another
 * transaction inserts concurrently uses {@code ON CONFLICT} as notification-service's and analytics-service's do. For
 * the same reason a handler must not rely on a foreign key to a row that another event writes: events of one order may
 * arrive in any order ("Order per order" in the README), and a violation is dead-lettered at once.
 *
 * <p>Stateless; thread-safe.
 */
enum FailureKind {
    /**
     * The database or the transaction as a whole failed, not the event: no record fails, the batch is tried again with
     * back-off until it commits.
     */
    DATABASE,
    /** The event can never be applied: its record goes to the dead-letter topic at once, without retries. */
    PERMANENT,
    /** Maybe later: the record goes to the next retry topic, and to the dead-letter topic once the retries are spent. */
    TRANSIENT;

    /** One row of the SQLSTATE table: states that start with {@code prefix} are of {@code kind}. */
    record SqlStateClass(String prefix, FailureKind kind, String meaning) {}

    /** The SQLSTATE table of the class comment; no prefix is a prefix of another, so at most one row matches. */
    static final List<SqlStateClass> STATES = List.of(
            new SqlStateClass("40001", DATABASE, "serialization failure"),
            new SqlStateClass("40P01", DATABASE, "deadlock detected"),
            new SqlStateClass("53300", DATABASE, "too many connections"),
            new SqlStateClass("57P", DATABASE, "operator intervention: shutdown, crash, cannot connect now"),
            new SqlStateClass("08", DATABASE, "connection exception"),
            new SqlStateClass("22", PERMANENT, "data exception"),
            new SqlStateClass("23", PERMANENT, "integrity constraint violation"),
            new SqlStateClass("54", PERMANENT, "program limit exceeded"));

    /** The kind of {@code failure}, from the first decisive link of its cause chain; see the class comment. */
    static FailureKind of(Throwable failure) {
        return switch (deciding(failure, newIdentitySet())) {
            case null -> TRANSIENT;
            case SQLException sql -> ofSqlState(sql.getSQLState());
            default -> PERMANENT;
        };
    }

    /** The kind of one SQLSTATE, or {@link #TRANSIENT} for one the table does not list. */
    static FailureKind ofSqlState(String sqlState) {
        for (SqlStateClass stateClass : STATES) {
            if (sqlState.startsWith(stateClass.prefix())) {
                return stateClass.kind();
            }
        }
        return TRANSIENT;
    }

    /** The SQLSTATE that decided {@code failure}'s kind, or null if no SQLException did. */
    static String sqlState(Throwable failure) {
        return deciding(failure, newIdentitySet()) instanceof SQLException sql ? sql.getSQLState() : null;
    }

    /**
     * The first link of the chain that decides: a rejection, an undecodable event or an SQLException with a state;
     * null if none does. {@code seen} stops at a cycle.
     */
    private static Throwable deciding(Throwable failure, Set<Throwable> seen) {
        if (failure == null || !seen.add(failure)) {
            return null;
        }
        if (failure instanceof RejectedEventException || failure instanceof UndecodableEventException) {
            return failure;
        }
        if (failure instanceof SQLException sql) {
            if (sql.getSQLState() != null && !sql.getSQLState().isBlank()) {
                return sql;
            }
            Throwable next = deciding(sql.getNextException(), seen);
            if (next != null) {
                return next;
            }
        }
        return deciding(failure.getCause(), seen);
    }

    private static Set<Throwable> newIdentitySet() {
        return Collections.newSetFromMap(new IdentityHashMap<>());
    }
}
