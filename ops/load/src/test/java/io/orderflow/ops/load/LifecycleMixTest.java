package io.orderflow.ops.load;

import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

class LifecycleMixTest {

    @Test
    void aProbabilityOutsideZeroToOneIsRefused() {
        assertThatThrownBy(() -> new LifecycleMix(1.5, 0.5, 0.5))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("[0, 1]");
        assertThatThrownBy(() -> new LifecycleMix(0.5, Double.NaN, 0.5)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> new LifecycleMix(0.5, 0.5, -0.1)).isInstanceOf(IllegalArgumentException.class);
    }
}
