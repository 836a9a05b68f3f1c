package io.orderflow.postgres;

/** A configured server address that is not a JDBC URL this module can derive service databases from. */
public final class InvalidPostgresUrlException extends IllegalArgumentException {

    private final String url;

    InvalidPostgresUrlException(String url, String reason) {
        super("PostgreSQL URL '" + url + "' is not usable: " + reason
                + ". Expected jdbc:postgresql://host[:port]/database[?parameters],"
                + " e.g. jdbc:postgresql://localhost:5432/postgres.");
        this.url = url;
    }

    public String url() {
        return url;
    }
}
