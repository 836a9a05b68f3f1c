package io.orderflow.ops.drill;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.stream.LongStream;
import org.junit.jupiter.api.Test;

/** Which orders of a stream ask for the other SKU: exactly the share, spread evenly, with no seed. */
class SkuOrderStreamTest {

    @Test
    void theShareOfOrdersForTheOtherSkuIsExactAndSpreadEvenly() {
        assertThat(LongStream.range(0, 100)
                        .filter(i -> SkuOrderStream.isOther(i, 0.2))
                        .toArray())
                .containsExactly(4, 9, 14, 19, 24, 29, 34, 39, 44, 49, 54, 59, 64, 69, 74, 79, 84, 89, 94, 99);
        assertThat(LongStream.range(0, 30).filter(i -> SkuOrderStream.isOther(i, 1.0 / 3)))
                .hasSize(10);
        assertThat(LongStream.range(0, 50).filter(i -> SkuOrderStream.isOther(i, 0)))
                .isEmpty();
        assertThat(LongStream.range(0, 50).filter(i -> SkuOrderStream.isOther(i, 1)))
                .hasSize(50);
    }
}
