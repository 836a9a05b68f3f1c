package io.orderflow.ops.admin;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import org.junit.jupiter.api.Test;
import picocli.CommandLine.TypeConversionException;

class DurationTextTest {

    @Test
    void readsEveryUnitAndIso8601() {
        assertThat(DurationText.parse("500ms")).isEqualTo(Duration.ofMillis(500));
        assertThat(DurationText.parse("10s")).isEqualTo(Duration.ofSeconds(10));
        assertThat(DurationText.parse("1m")).isEqualTo(Duration.ofMinutes(1));
        assertThat(DurationText.parse("2h")).isEqualTo(Duration.ofHours(2));
        assertThat(DurationText.parse("7d")).isEqualTo(Duration.ofDays(7));
        assertThat(DurationText.parse("PT10S")).isEqualTo(Duration.ofSeconds(10));
        assertThat(DurationText.parse("P1DT2H")).isEqualTo(Duration.ofHours(26));
        assertThat(DurationText.parse("pt1m")).isEqualTo(Duration.ofMinutes(1));
    }

    @Test
    void refusesWhatIsNotADurationNamingTheFormsAndTheConverterRefusesZero() {
        for (String text : new String[] {"", "soon", "10", "1w", "ms", "PT"}) {
            assertThatThrownBy(() -> DurationText.parse(text))
                    .as(text)
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessage("'" + text + "' is not a duration: " + DurationText.FORMS);
        }
        assertThatThrownBy(() -> new DurationText.Positive().convert("0s"))
                .isInstanceOf(TypeConversionException.class)
                .hasMessageContaining("'0s' is not a positive duration");
        assertThat(new DurationText.Positive().convert("3s")).isEqualTo(Duration.ofSeconds(3));
    }
}
