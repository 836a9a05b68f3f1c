package io.orderflow.ops.bench;

import picocli.CommandLine.ITypeConverter;
import picocli.CommandLine.TypeConversionException;

/**
 * A {@code KEY=VALUE} broker setting given to a benchmark to investigate a gap (e.g. {@code
 * log.flush.interval.messages=1}): passed on to the broker as given, which checks the key and value itself.
 */
public final class Setting implements ITypeConverter<String> {
    @Override
    public String convert(String setting) {
        if (setting.indexOf('=') < 1) {
            throw new TypeConversionException("takes KEY=VALUE pairs, got '" + setting + "'");
        }
        return setting;
    }
}
