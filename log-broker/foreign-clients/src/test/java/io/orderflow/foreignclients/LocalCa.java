package io.orderflow.foreignclients;

import io.orderflow.process.LocalCertificates;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.List;
import java.util.stream.Stream;

/**
 * The CA and broker certificate of the {@code SASL_SSL} tests, made by keytool once per test JVM (about 8 s) in a
 * temporary directory readable by its owner only, and deleted when the JVM exits.
 */
final class LocalCa {
    private static LocalCertificates certificates;

    private LocalCa() {}

    static synchronized LocalCertificates certificates() {
        if (certificates == null) {
            try {
                Path dir = Files.createTempDirectory("foreign-clients-ca");
                Runtime.getRuntime().addShutdownHook(new Thread(() -> delete(dir)));
                certificates = LocalCertificates.open(dir.resolve("certificates"), List.of());
            } catch (IOException e) {
                throw new UncheckedIOException("Cannot make the local CA", e);
            }
        }
        return certificates;
    }

    private static void delete(Path dir) {
        try (Stream<Path> files = Files.walk(dir)) {
            files.sorted(Comparator.reverseOrder()).forEach(f -> f.toFile().delete());
        } catch (IOException e) {
            // a temporary directory: the system cleans it eventually
        }
    }
}
