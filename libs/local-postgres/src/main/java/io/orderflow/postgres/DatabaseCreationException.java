package io.orderflow.postgres;

import java.sql.SQLException;

/** The server refused to create (or to report on) a service's database. */
public final class DatabaseCreationException extends RuntimeException {

    private final String databaseName;
    private final String sqlState;

    DatabaseCreationException(
            String serviceName, String databaseName, String adminUrl, String user, SQLException cause) {
        super(
                "Could not create database '" + databaseName + "' for service '" + serviceName + "' on " + adminUrl
                        + " as user '" + user + "' (SQLState " + cause.getSQLState() + "): " + cause.getMessage(),
                cause);
        this.databaseName = databaseName;
        this.sqlState = cause.getSQLState();
    }

    public String databaseName() {
        return databaseName;
    }

    public String sqlState() {
        return sqlState;
    }
}
