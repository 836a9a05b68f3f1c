package io.orderflow.testing;

import io.orderflow.postgres.DatabaseName;
import io.orderflow.postgres.EmbeddedMode;
import io.orderflow.postgres.LocalPostgres;
import io.orderflow.postgres.PostgresDatabase;
import java.nio.file.Path;
import java.util.Optional;
import org.junit.jupiter.api.extension.ExtensionContext;
import org.junit.jupiter.api.extension.ParameterContext;
import org.junit.jupiter.api.extension.ParameterResolutionException;
import org.junit.jupiter.api.extension.ParameterResolver;
import org.junit.platform.commons.support.AnnotationSupport;

/**
 * Resolves {@link PostgresDatabase} parameters to a service's database on one PostgreSQL shared by the whole
 * test JVM.
 *
 * <p>The server is a {@link LocalPostgres}: the one configured through {@code orderflow.postgres.url} /
 * {@code ORDERFLOW_POSTGRES_URL} if set, else an embedded PostgreSQL with its files under
 * {@code target/embedded-postgres} of the module running the tests (surefire's working directory is the module's
 * base directory). It is started lazily by the first test that asks for a database and kept in the root context's
 * store, which every test class of the run shares and which closes it (stopping an embedded server) when the run
 * ends; {@link LocalPostgres}'s shutdown hook is the fallback. Databases are created on first use and then reused
 * by every test class: tests own their tables, not the database.
 *
 * <p>The service name comes from {@link ServiceDatabase} on the parameter, else from the nearest
 * {@link PostgresTest#service()} on the method, the class, or an enclosing class. Thread-safe: parallel test
 * classes share the same server through the store's atomic {@code computeIfAbsent}.
 */
public final class PostgresExtension implements ParameterResolver {

    private static final ExtensionContext.Namespace NAMESPACE =
            ExtensionContext.Namespace.create(PostgresExtension.class);
    static final Path EMBEDDED_DIRECTORY = Path.of("target", "embedded-postgres");
    /**
     * Tests run the embedded server without fsync, for speed: a test's databases die with the test run, so no
     * commit of theirs needs to survive a power cut. The platform and the benchmarks run durable (see EmbeddedMode).
     */
    static final EmbeddedMode TESTS_RELAX_DURABILITY = EmbeddedMode.FRESH_UNSYNCED;

    @Override
    public boolean supportsParameter(ParameterContext parameter, ExtensionContext context) {
        return parameter.getParameter().getType() == PostgresDatabase.class;
    }

    @Override
    public PostgresDatabase resolveParameter(ParameterContext parameter, ExtensionContext context) {
        String service = serviceName(parameter, context)
                .orElseThrow(() -> new ParameterResolutionException("Parameter '"
                        + parameter.getParameter().getName() + "' of "
                        + parameter.getDeclaringExecutable().getDeclaringClass().getSimpleName() + "."
                        + parameter.getDeclaringExecutable().getName()
                        + " needs to know whose database it gets: annotate it with @ServiceDatabase(\"order-service\")"
                        + " or the test with @PostgresTest(service = \"order-service\")"));
        DatabaseName.forService(service); // an invalid name fails the test before any server starts
        return sharedServer(context).database(service);
    }

    /** The JVM's shared server, started on first use. */
    static LocalPostgres sharedServer(ExtensionContext context) {
        return context.getRoot()
                .getStore(NAMESPACE)
                .computeIfAbsent(
                        LocalPostgres.class,
                        key -> LocalPostgres.start(EMBEDDED_DIRECTORY.toAbsolutePath(), TESTS_RELAX_DURABILITY),
                        LocalPostgres.class);
    }

    private static Optional<String> serviceName(ParameterContext parameter, ExtensionContext context) {
        Optional<ServiceDatabase> onParameter = parameter.findAnnotation(ServiceDatabase.class);
        if (onParameter.isPresent()) {
            return onParameter.map(ServiceDatabase::value);
        }
        for (Optional<ExtensionContext> current = Optional.of(context);
                current.isPresent();
                current = current.get().getParent()) {
            Optional<String> declared = current.get()
                    .getElement()
                    .flatMap(element -> AnnotationSupport.findAnnotation(element, PostgresTest.class))
                    .map(PostgresTest::service)
                    .filter(service -> !service.isEmpty());
            if (declared.isPresent()) {
                return declared;
            }
        }
        return Optional.empty();
    }
}
