package io.orderflow.contracts;

import com.fasterxml.jackson.annotation.JsonFormat;
import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.core.StreamReadFeature;
import com.fasterxml.jackson.core.StreamWriteFeature;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.cfg.CoercionAction;
import com.fasterxml.jackson.databind.cfg.CoercionInputShape;
import com.fasterxml.jackson.databind.cfg.JsonNodeFeature;
import com.fasterxml.jackson.databind.json.JsonMapper;
import com.fasterxml.jackson.databind.type.LogicalType;
import java.math.BigDecimal;

/**
 * The Jackson configuration of the event wire format, in one place so that every service reads and writes it alike.
 *
 * <ul>
 *   <li>Amounts ({@link BigDecimal}) are JSON strings in plain notation, e.g. {@code "12.50"}: a JSON number would pass
 *       through doubles in many readers, and would lose the scale ("12.50" vs "12.5").
 *   <li>Unknown properties are ignored: that is what lets a reader of 1.0 read 1.1.
 *   <li>Absent optional fields are omitted, never written as null.
 *   <li>Duplicate keys and trailing content are errors: a record value must mean one thing.
 *   <li>Scalars are not coerced across JSON types ({@code "3"} is no quantity, {@code 1.5} no integer, {@code 42} no
 *       text), matching the schemas. The one exception is amounts, which are also read from JSON numbers, exactly:
 *       trees keep the number's digits and scale rather than passing it through a double or stripping zeros.
 * </ul>
 */
public final class EventJson {

    private EventJson() {}

    /** A new mapper for the event wire format. Thread-safe once returned; share it. */
    public static ObjectMapper newObjectMapper() {
        return JsonMapper.builder()
                .disable(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES)
                .enable(DeserializationFeature.FAIL_ON_NULL_FOR_PRIMITIVES)
                .disable(DeserializationFeature.ACCEPT_FLOAT_AS_INT)
                .enable(DeserializationFeature.FAIL_ON_TRAILING_TOKENS)
                .enable(DeserializationFeature.USE_BIG_DECIMAL_FOR_FLOATS)
                .disable(JsonNodeFeature.STRIP_TRAILING_BIGDECIMAL_ZEROES)
                .enable(StreamReadFeature.STRICT_DUPLICATE_DETECTION)
                .enable(StreamWriteFeature.WRITE_BIGDECIMAL_AS_PLAIN)
                .defaultPropertyInclusion(JsonInclude.Value.construct(JsonInclude.Include.NON_NULL, null))
                .withConfigOverride(
                        BigDecimal.class, o -> o.setFormat(JsonFormat.Value.forShape(JsonFormat.Shape.STRING)))
                .withCoercionConfig(
                        LogicalType.Integer, c -> c.setCoercion(CoercionInputShape.String, CoercionAction.Fail))
                .withCoercionConfig(
                        LogicalType.Textual,
                        c -> c.setCoercion(CoercionInputShape.Integer, CoercionAction.Fail)
                                .setCoercion(CoercionInputShape.Float, CoercionAction.Fail)
                                .setCoercion(CoercionInputShape.Boolean, CoercionAction.Fail))
                .build();
    }
}
