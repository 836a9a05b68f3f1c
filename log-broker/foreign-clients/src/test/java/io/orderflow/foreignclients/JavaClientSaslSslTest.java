package io.orderflow.foreignclients;

import java.nio.file.Path;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Each older Java client release the module's pom names, in a JVM of its own, against a SASL_SSL listener:
 * SCRAM-SHA-512 and a PEM trust store holding the local CA.
 */
class JavaClientSaslSslTest {
    @TempDir
    Path dir;

    static Iterable<String> versions() {
        return JavaClient.versions();
    }

    @ParameterizedTest(name = "kafka-clients {0}")
    @MethodSource("versions")
    void producesConsumesInAGroupOfTwoCommitsAndReplays(String version) throws Exception {
        // The child JVM is this one's java. kafka-clients 2.x finds the SCRAM user and password through
        // Subject.getSubject, which throws UnsupportedOperationException from JDK 24 on (JEP 486); 3.9.1 does not
        // need it. 2.x's users run it on the JDKs of its time.
        Assumptions.assumeFalse(
                version.startsWith("2.") && Runtime.version().feature() >= 24,
                "kafka-clients " + version + " cannot log in with SCRAM on JDK "
                        + Runtime.version().feature()
                        + " (Subject.getSubject is unsupported from JDK 24 on); run the tests on JDK 21");
        new ClientScenario(new JavaClient(version), dir).overSaslSsl().run();
    }
}
