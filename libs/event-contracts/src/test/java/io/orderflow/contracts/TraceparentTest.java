package io.orderflow.contracts;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.opentelemetry.api.trace.SpanContext;
import io.orderflow.property.Properties;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class TraceparentTest {

    @Test
    void acceptsW3cExample() {
        assertThat(Traceparent.isValid("00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01"))
                .isTrue();
    }

    @ParameterizedTest
    @ValueSource(
            strings = {
                "",
                "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7",
                "00-4bf92f3577b34da6a3ce929d0e0e473-00f067aa0ba902b7-01",
                "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b-01",
                "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-1",
                "00-4BF92F3577B34DA6A3CE929D0E0E4736-00F067AA0BA902B7-01",
                "01-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01",
                "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01-extra",
                "00_4bf92f3577b34da6a3ce929d0e0e4736_00f067aa0ba902b7_01",
                "00-00000000000000000000000000000000-00f067aa0ba902b7-01",
                "00-4bf92f3577b34da6a3ce929d0e0e4736-0000000000000000-01",
                "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902g7-01",
            })
    void rejectsMalformedOrAllZeroValues(String value) {
        assertThat(Traceparent.isValid(value)).isFalse();
        assertThatThrownBy(() -> Traceparent.requireValidOrNull(value))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("\"" + value + "\"");
    }

    @Test
    void absentTraceContextIsAllowed() {
        assertThat(Traceparent.requireValidOrNull(null)).isNull();
    }

    @Test
    void aValidValueBecomesARemoteSpanContextAndBackUnchanged() {
        Properties.forAll(1000, gen -> {
            String value = EventSamples.validTraceparent(gen);
            SpanContext context = Traceparent.toSpanContext(value);

            assertThat(context.isValid()).isTrue();
            assertThat(context.isRemote()).isTrue();
            assertThat(value).startsWith("00-" + context.getTraceId() + "-" + context.getSpanId() + "-");
            assertThat(Traceparent.of(context)).isEqualTo(value);
        });
    }

    @Test
    void theSampledFlagIsKept() {
        assertThat(Traceparent.toSpanContext("00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01")
                        .isSampled())
                .isTrue();
        assertThat(Traceparent.toSpanContext("00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-00")
                        .isSampled())
                .isFalse();
    }

    @ParameterizedTest
    @ValueSource(strings = {"", "00-00000000000000000000000000000000-00f067aa0ba902b7-01", "garbage"})
    void anInvalidOrAbsentValueGivesNoParentAndNoContextGivesNoValue(String value) {
        assertThat(Traceparent.toSpanContext(value).isValid()).isFalse();
        assertThat(Traceparent.toSpanContext(null).isValid()).isFalse();
        assertThat(Traceparent.of(SpanContext.getInvalid())).isNull();
    }
}
