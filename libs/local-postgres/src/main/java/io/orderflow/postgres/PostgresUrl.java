package io.orderflow.postgres;

import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A {@code jdbc:postgresql://hosts/database?parameters} URL, split so that the URL of a service's database can be
 * derived from the admin URL of the same server: same hosts, same parameters (sslmode and the like), another
 * database.
 */
public record PostgresUrl(String hosts, String database, String parameters) {

    private static final Pattern URL =
            Pattern.compile("jdbc:postgresql://(?<hosts>[^/?]+)(?:/(?<database>[^?]*))?(?:\\?(?<parameters>.*))?");

    public static PostgresUrl parse(String url) {
        Matcher matcher = URL.matcher(url.strip());
        if (!matcher.matches()) {
            throw new InvalidPostgresUrlException(url, "it does not start with jdbc:postgresql://host");
        }
        String database = matcher.group("database");
        if (database == null || database.isEmpty()) {
            throw new InvalidPostgresUrlException(url, "it names no database to connect to");
        }
        String parameters = matcher.group("parameters");
        return new PostgresUrl(matcher.group("hosts"), database, parameters == null ? "" : parameters);
    }

    public static PostgresUrl local(int port, String database) {
        return new PostgresUrl("localhost:" + port, database, "");
    }

    public PostgresUrl withDatabase(String otherDatabase) {
        return new PostgresUrl(hosts, otherDatabase, parameters);
    }

    @Override
    public String toString() {
        return "jdbc:postgresql://" + hosts + "/" + database + (parameters.isEmpty() ? "" : "?" + parameters);
    }
}
