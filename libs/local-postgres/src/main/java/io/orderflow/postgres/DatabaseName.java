package io.orderflow.postgres;

import java.util.Set;
import java.util.regex.Pattern;

/**
 * The database a service owns: its name with {@code -} turned into {@code _} ({@code order-service} becomes
 * {@code order_service}), so the name is a plain SQL identifier that needs no quoting in psql or migrations.
 *
 * <p>Only {@code [a-z0-9_-]}, starting with a letter and at most 63 characters (PostgreSQL's identifier limit)
 * are accepted; anything else is rejected rather than silently rewritten, because two services must never end
 * up sharing a database by accident. The server's own databases ({@code postgres}, {@code template0},
 * {@code template1}) are refused for the same reason.
 */
public record DatabaseName(String value) {

    private static final Pattern SERVICE_NAME = Pattern.compile("[a-z][a-z0-9_-]*");
    private static final Pattern SANITISED_NAME = Pattern.compile("[a-z][a-z0-9_]{0,62}");
    private static final int MAX_IDENTIFIER_LENGTH = 63;
    private static final Set<String> SERVER_DATABASES = Set.of("postgres", "template0", "template1");

    public DatabaseName {
        if (!SANITISED_NAME.matcher(value).matches()) {
            throw new IllegalArgumentException("'" + value + "' is not a sanitised database name");
        }
    }

    public static DatabaseName forService(String serviceName) {
        if (serviceName == null || serviceName.isEmpty()) {
            throw new InvalidServiceNameException(String.valueOf(serviceName), "it is empty");
        }
        if (serviceName.length() > MAX_IDENTIFIER_LENGTH) {
            throw new InvalidServiceNameException(
                    serviceName, "it has " + serviceName.length() + " characters, more than " + MAX_IDENTIFIER_LENGTH);
        }
        if (!SERVICE_NAME.matcher(serviceName).matches()) {
            throw new InvalidServiceNameException(
                    serviceName,
                    "it contains characters outside [a-z0-9_-] or starts with " + "something other than a letter");
        }
        String sanitised = serviceName.replace('-', '_');
        if (SERVER_DATABASES.contains(sanitised)) {
            throw new InvalidServiceNameException(
                    serviceName, "'" + sanitised + "' is one of the server's own databases");
        }
        return new DatabaseName(sanitised);
    }

    @Override
    public String toString() {
        return value;
    }
}
