package io.orderflow.orders.rest;

import static org.assertj.core.api.Assertions.assertThat;

import io.orderflow.contracts.Traceparent;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.NullSource;
import org.junit.jupiter.params.provider.ValueSource;

class TraceContextTest {

    private static final String VALID = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01";

    @Test
    void aValidTraceparentIsContinued() {
        assertThat(TraceContext.continueOrStart(VALID)).isEqualTo(VALID);
        assertThat(TraceContext.continueOrStart("  " + VALID + " ")).isEqualTo(VALID);
    }

    @ParameterizedTest
    @NullSource
    @ValueSource(
            strings = {
                "",
                "garbage",
                "00-4BF92F3577B34DA6A3CE929D0E0E4736-00F067AA0BA902B7-01",
                "00-00000000000000000000000000000000-00f067aa0ba902b7-01",
                "00-4bf92f3577b34da6a3ce929d0e0e4736-0000000000000000-01",
                "ff-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01",
                "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7"
            })
    void anInvalidOrMissingTraceparentStartsANewTrace(String header) {
        String started = TraceContext.continueOrStart(header);

        assertThat(Traceparent.isValid(started)).isTrue();
        assertThat(started).isNotEqualTo(header).endsWith("-01");
    }

    @Test
    void newTracesAreDistinct() {
        assertThat(IntStream.range(0, 1000).mapToObj(i -> TraceContext.start()))
                .allMatch(Traceparent::isValid)
                .doesNotHaveDuplicates();
    }
}
