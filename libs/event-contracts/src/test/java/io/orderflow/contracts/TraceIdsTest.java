package io.orderflow.contracts;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class TraceIdsTest {

    @Test
    void theTraceIdOfAValidTraceparentAndNothingOtherwise() {
        assertThat(TraceIds.of("00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01"))
                .contains("0af7651916cd43dd8448eb211c80319c");
        assertThat(TraceIds.of(null)).isEmpty();
        assertThat(TraceIds.of("not a traceparent")).isEmpty();
        assertThat(TraceIds.of("00-0AF7651916CD43DD8448EB211C80319C-b7ad6b7169203331-01"))
                .isEmpty();
    }
}
