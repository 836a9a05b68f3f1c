package io.orderflow.ops.bench.kafkaperf;

import java.util.Arrays;
import java.util.Iterator;
import java.util.Locale;
import picocli.CommandLine.ITypeConverter;
import picocli.CommandLine.TypeConversionException;

/**
 * How both brokers' client listener is secured, and so how every perf tool connects, as {@code --security} names it:
 * {@code plaintext} (no TLS, no login; the default) or {@code sasl_ssl} (TLS and a SCRAM-SHA-512 login).
 */
enum Security {
    PLAINTEXT,
    SASL_SSL;

    /** The name {@code --security} takes and reports print. */
    String option() {
        return name().toLowerCase(Locale.ROOT);
    }

    /** picocli's converter for {@code --security} and the candidates its help lists. */
    static final class Names implements ITypeConverter<Security>, Iterable<String> {
        @Override
        public Security convert(String name) {
            for (Security security : values()) {
                if (security.option().equals(name.toLowerCase(Locale.ROOT))) {
                    return security;
                }
            }
            throw new TypeConversionException("takes plaintext or sasl_ssl, got '" + name + "'");
        }

        @Override
        public Iterator<String> iterator() {
            return Arrays.stream(values()).map(Security::option).iterator();
        }
    }
}
