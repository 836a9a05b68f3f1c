package io.orderflow.contracts;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.ObjectMapper;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.NullAndEmptySource;
import org.junit.jupiter.params.provider.ValueSource;

class EventVersionTest {

    @Test
    void parsesMajorDotMinor() {
        assertThat(EventVersion.parse("1.1")).isEqualTo(new EventVersion(1, 1));
        assertThat(EventVersion.parse("1.10"))
                .isEqualTo(new EventVersion(1, 10))
                .isNotEqualTo(EventVersion.V1_1);
        assertThat(EventVersion.V1_0).hasToString("1.0");
    }

    @ParameterizedTest
    @NullAndEmptySource
    @ValueSource(
            strings = {"1", "1.0.0", "v1.0", "01.0", "1.01", "-1.0", "1.-1", " 1.0", "1.0 ", "1,0", "9999999999.0"})
    void rejectsTextThatIsNotCanonicalMajorDotMinorNamingIt(String text) {
        assertThatThrownBy(() -> EventVersion.parse(text))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining(text == null ? "null" : "\"" + text + "\"");
    }

    @Test
    void ordersByMajorThenMinor() {
        assertThat(EventVersion.parse("1.10")).isGreaterThan(EventVersion.V1_1);
        assertThat(EventVersion.parse("2.0")).isGreaterThan(EventVersion.parse("1.99"));
    }

    @Test
    void readerOfAMajorReadsEveryMinorOfIt() {
        assertThat(EventVersion.V1_0.sameMajorAs(EventVersion.parse("1.7"))).isTrue();
        assertThat(EventVersion.V1_1.sameMajorAs(EventVersion.parse("2.0"))).isFalse();
    }

    @Test
    void jacksonWritesAndReadsItAsTheVersionString() throws Exception {
        ObjectMapper mapper = EventJson.newObjectMapper();

        assertThat(mapper.writeValueAsString(EventVersion.V1_1)).isEqualTo("\"1.1\"");
        assertThat(mapper.readValue("\"1.1\"", EventVersion.class)).isEqualTo(EventVersion.V1_1);
    }
}
