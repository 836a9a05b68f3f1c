package io.orderflow.consumer;

import static org.assertj.core.api.Assertions.assertThat;

import io.orderflow.contracts.MalformedEventException;
import io.orderflow.property.Gen;
import io.orderflow.property.Properties;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.sql.BatchUpdateException;
import java.sql.SQLException;
import java.sql.SQLTransientConnectionException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** The failure classification: its SQLSTATE table, and how it reads a handler's exception through its causes. */
class FailureKindTest {

    private static final String STATE_CHARS = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ";

    @ParameterizedTest(name = "{0} {2}")
    @CsvSource({
        "08006, DATABASE, connection failure",
        "08001, DATABASE, cannot connect",
        "57P01, DATABASE, admin shutdown",
        "57P03, DATABASE, cannot connect now",
        "53300, DATABASE, too many connections",
        "40001, DATABASE, serialization failure",
        "40P01, DATABASE, deadlock",
        "22001, PERMANENT, string too long for its column",
        "22021, PERMANENT, invalid byte sequence (U+0000)",
        "22P05, PERMANENT, untranslatable character",
        "22003, PERMANENT, numeric value out of range",
        "23505, PERMANENT, unique violation",
        "23503, PERMANENT, foreign key violation",
        "23514, PERMANENT, check violation",
        "23502, PERMANENT, not-null violation",
        "54000, PERMANENT, index row too large",
        "55P03, TRANSIENT, lock not available",
        "57014, TRANSIENT, statement timeout",
        "53100, TRANSIENT, disk full",
        "53200, TRANSIENT, out of memory",
        "40002, TRANSIENT, transaction integrity constraint violation",
        "42P01, TRANSIENT, undefined table (a deployment not yet migrated)",
        "XX000, TRANSIENT, internal error",
    })
    void classifiesEachSqlStateByItsClass(String state, FailureKind kind, String meaning) {
        assertThat(FailureKind.of(new SQLException(meaning, state))).isEqualTo(kind);
    }

    @Test
    void wrappingAFailureInAnyNumberOfPlainExceptionsDoesNotChangeItsKind() {
        Properties.forAll(1000, gen -> {
            String state = gen.string(5, 5, STATE_CHARS);
            SQLException sql = new SQLException("drawn", state);
            Throwable wrapped = wrap(gen, sql);

            assertThat(FailureKind.of(wrapped)).isEqualTo(FailureKind.ofSqlState(state));
            assertThat(FailureKind.sqlState(wrapped)).isEqualTo(state);
        });
    }

    @Test
    void theOutermostDecisiveCauseWins() {
        SQLException lostConnection = new SQLException("connection reset", "08006");

        assertThat(FailureKind.of(new RejectedEventException("never", lostConnection)))
                .isEqualTo(FailureKind.PERMANENT);
        assertThat(FailureKind.of(new IllegalStateException(new RejectedEventException("never"))))
                .isEqualTo(FailureKind.PERMANENT);
        assertThat(FailureKind.of(new SQLException("cannot insert", "23514", lostConnection)))
                .isEqualTo(FailureKind.PERMANENT);
    }

    @Test
    void anEventTheHandlerCannotReadIsPermanent() {
        assertThat(FailureKind.of(new MalformedEventException("OrderCreated.customerId must not contain ...")))
                .isEqualTo(FailureKind.PERMANENT);
    }

    @Test
    void anSqlExceptionWithoutAStateIsDecidedByItsNextExceptionOrItsCause() {
        BatchUpdateException batch = new BatchUpdateException("Batch entry 0 was aborted", null, 0, new int[0], null);
        batch.setNextException(new SQLException("value too long for type character varying(10)", "22001"));
        SQLException stateless = new SQLTransientConnectionException(
                "I/O error", null, new UncheckedIOException(new IOException("reset")));

        assertThat(FailureKind.of(batch)).isEqualTo(FailureKind.PERMANENT);
        assertThat(FailureKind.sqlState(batch)).isEqualTo("22001");
        assertThat(FailureKind.of(stateless)).isEqualTo(FailureKind.TRANSIENT);
        assertThat(FailureKind.sqlState(stateless)).isNull();
    }

    @Test
    void aFailureWithNoDecisiveCauseIsTransientAndACycleEnds() {
        IllegalStateException first = new IllegalStateException("first");
        IllegalArgumentException second = new IllegalArgumentException("second", first);
        first.initCause(second);

        assertThat(FailureKind.of(new IllegalStateException("the handler is told to fail")))
                .isEqualTo(FailureKind.TRANSIENT);
        assertThat(FailureKind.of(first)).isEqualTo(FailureKind.TRANSIENT);
    }

    /** {@code failure} inside 0 to 4 plain exceptions, some of them SQLExceptions without a state. */
    private static Throwable wrap(Gen gen, Throwable failure) {
        Throwable wrapped = failure;
        for (int depth = gen.ints(0, 4); depth > 0; depth--) {
            wrapped = gen.oneOf(
                    new RuntimeException("wrapped", wrapped),
                    new IllegalStateException(wrapped),
                    new SQLException("wrapped", null, wrapped));
        }
        return wrapped;
    }
}
