package io.orderflow.compatibility;

import static org.assertj.core.api.Assertions.assertThat;

import io.orderflow.compatibility.TransactionalChecker.Outcome;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The checker names each kind of anomaly in a history made to have it, and none in a clean one. */
class TransactionalCheckerAnomaliesTest {
    private static TransactionalChecker history() {
        TransactionalChecker checker = new TransactionalChecker();
        checker.transaction("w0-1", Map.of(0, List.of("w0-1-0"), 1, List.of("w0-1-1")), Outcome.COMMITTED);
        checker.transaction("w0-2", Map.of(0, List.of("w0-2-0")), Outcome.ABORTED);
        checker.transaction("w0-3", Map.of(0, List.of("w0-3-0", "w0-3-1")), Outcome.UNKNOWN);
        return checker;
    }

    @Test
    void aCleanHistoryHasNone() {
        TransactionalChecker checker = history();
        checker.liveRead(Map.of(0, List.of("w0-1-0")));
        assertThat(checker.anomalies(Map.of(0, List.of("w0-1-0", "w0-3-0", "w0-3-1"), 1, List.of("w0-1-1"))))
                .isEmpty();
    }

    @Test
    void eachAnomalyIsNamed() {
        assertThat(history().anomalies(Map.of(0, List.of("w0-1-0", "w0-2-0"), 1, List.of("w0-1-1"))))
                .singleElement()
                .asString()
                .startsWith("aborted read");
        assertThat(history().anomalies(Map.of(0, List.of("w0-1-0"))))
                .singleElement()
                .asString()
                .startsWith("lost write");
        assertThat(history().anomalies(Map.of(0, List.of("w0-1-0", "w0-3-0"), 1, List.of("w0-1-1"))))
                .singleElement()
                .asString()
                .startsWith("non-atomic transaction");
        assertThat(history().anomalies(Map.of(0, List.of("w0-3-0", "w0-3-1", "w0-1-0"), 1, List.of("w0-1-1"))))
                .anySatisfy(a -> assertThat(a).startsWith("order violation"));
        TransactionalChecker live = history();
        live.liveRead(Map.of(0, List.of("w0-2-0")));
        assertThat(live.anomalies(Map.of(0, List.of("w0-1-0"), 1, List.of("w0-1-1"))))
                .singleElement()
                .asString()
                .startsWith("uncommitted read");
    }
}
