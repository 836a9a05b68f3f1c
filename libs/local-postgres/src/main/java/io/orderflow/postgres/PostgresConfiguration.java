package io.orderflow.postgres;

import java.util.Optional;
import java.util.function.UnaryOperator;

/**
 * Which PostgreSQL to use: an existing server when a URL is configured, otherwise an embedded one.
 *
 * <p>Read from system properties first, then environment variables; blank values count as unset:
 *
 * <ul>
 *   <li>{@value #URL_PROPERTY} / {@value #URL_ENVIRONMENT_VARIABLE}: JDBC URL of an admin database on an existing
 *       server, e.g. {@code jdbc:postgresql://localhost:5432/postgres}. Unset: start an embedded PostgreSQL.
 *   <li>{@value #USER_PROPERTY} / {@value #USER_ENVIRONMENT_VARIABLE}: user for that server, default
 *       {@value #DEFAULT_USER}. It needs the CREATEDB privilege unless the service databases already exist.
 *   <li>{@value #PASSWORD_PROPERTY} / {@value #PASSWORD_ENVIRONMENT_VARIABLE}: its password, default empty.
 * </ul>
 *
 * <p>User and password apply to a configured server only; the embedded server always has the superuser
 * {@value #DEFAULT_USER} with trust authentication on loopback.
 */
public record PostgresConfiguration(Optional<PostgresUrl> serverUrl, String user, String password) {

    public static final String URL_PROPERTY = "orderflow.postgres.url";
    public static final String URL_ENVIRONMENT_VARIABLE = "ORDERFLOW_POSTGRES_URL";
    public static final String USER_PROPERTY = "orderflow.postgres.user";
    public static final String USER_ENVIRONMENT_VARIABLE = "ORDERFLOW_POSTGRES_USER";
    public static final String PASSWORD_PROPERTY = "orderflow.postgres.password";
    public static final String PASSWORD_ENVIRONMENT_VARIABLE = "ORDERFLOW_POSTGRES_PASSWORD";
    public static final String DEFAULT_USER = "postgres";

    /** The configuration this JVM was given through system properties and environment variables. */
    public static PostgresConfiguration fromEnvironment() {
        return from(System::getProperty, System::getenv);
    }

    static PostgresConfiguration from(UnaryOperator<String> systemProperties, UnaryOperator<String> environment) {
        Optional<PostgresUrl> url = lookUp(systemProperties, URL_PROPERTY, environment, URL_ENVIRONMENT_VARIABLE)
                .map(PostgresUrl::parse);
        String user = lookUp(systemProperties, USER_PROPERTY, environment, USER_ENVIRONMENT_VARIABLE)
                .orElse(DEFAULT_USER);
        String password = lookUp(systemProperties, PASSWORD_PROPERTY, environment, PASSWORD_ENVIRONMENT_VARIABLE)
                .orElse("");
        return new PostgresConfiguration(url, user, password);
    }

    /** No server configured: start an embedded one. */
    public static PostgresConfiguration embedded() {
        return new PostgresConfiguration(Optional.empty(), DEFAULT_USER, "");
    }

    public static PostgresConfiguration server(String url, String user, String password) {
        return new PostgresConfiguration(Optional.of(PostgresUrl.parse(url)), user, password);
    }

    private static Optional<String> lookUp(
            UnaryOperator<String> systemProperties,
            String property,
            UnaryOperator<String> environment,
            String environmentVariable) {
        return nonBlank(systemProperties.apply(property)).or(() -> nonBlank(environment.apply(environmentVariable)));
    }

    private static Optional<String> nonBlank(String value) {
        return Optional.ofNullable(value).filter(v -> !v.isBlank());
    }

    @Override
    public String toString() {
        return "PostgresConfiguration[serverUrl="
                + serverUrl.map(PostgresUrl::toString).orElse("(embedded)") + ", user=" + user + ", password="
                + (password.isEmpty() ? "(empty)" : "****") + "]";
    }
}
