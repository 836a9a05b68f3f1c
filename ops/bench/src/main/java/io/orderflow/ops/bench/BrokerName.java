package io.orderflow.ops.bench;

import java.util.Iterator;
import java.util.List;
import picocli.CommandLine.ITypeConverter;
import picocli.CommandLine.TypeConversionException;

/**
 * A broker a benchmark measures, as {@code --brokers} names it: {@code ours} (our log broker) or {@code kafka} (Apache
 * Kafka, the anchor). Both picocli's converter and the candidates {@code ${COMPLETION-CANDIDATES}} lists in the help.
 */
public final class BrokerName implements ITypeConverter<String>, Iterable<String> {
    private static final List<String> NAMES = List.of("ours", "kafka");

    @Override
    public String convert(String name) {
        if (!NAMES.contains(name)) {
            throw new TypeConversionException("takes ours and/or kafka, got '" + name + "'");
        }
        return name;
    }

    @Override
    public Iterator<String> iterator() {
        return NAMES.iterator();
    }
}
