package io.orderflow.ops.load;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;
import picocli.CommandLine.TypeConversionException;

class WholeNumberTest {
    private final WholeNumber.Positive positive = new WholeNumber.Positive();

    @Test
    void thousandsMayBeGroupedInThrees() {
        assertThat(positive.convert("2000")).isEqualTo(2000);
        assertThat(positive.convert("2,000")).isEqualTo(2000);
        assertThat(positive.convert("2_000")).isEqualTo(2000);
        assertThat(new WholeNumber.PositiveLong().convert("3,000,000,000")).isEqualTo(3_000_000_000L);
    }

    @Test
    void refusesWhatIsNoWholeNumberOrOutOfItsRangeNamingTheText() {
        assertThatThrownBy(() -> positive.convert("1,5"))
                .isInstanceOf(TypeConversionException.class)
                .hasMessageStartingWith("'1,5' is not a whole number above 0");
        assertThatThrownBy(() -> positive.convert("2.5")).hasMessageStartingWith("'2.5' is not a whole number");
        assertThatThrownBy(() -> positive.convert("0")).hasMessage("'0' is not a whole number above 0");
        assertThatThrownBy(() -> positive.convert("3,000,000,000"))
                .hasMessage("'3,000,000,000' is out of range (at most 2147483647)");
        assertThat(new WholeNumber.NotNegative().convert("0")).isZero();
        assertThatThrownBy(() -> new WholeNumber.NotNegative().convert("-1"))
                .hasMessage("'-1' is not a whole number, 0 or more");
    }
}
