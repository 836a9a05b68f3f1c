package io.orderflow.postgres;

import java.nio.file.Path;

/** Neither the configured server answered nor could the embedded one be started. */
public final class PostgresUnavailableException extends RuntimeException {

    PostgresUnavailableException(String message, Throwable cause) {
        super(message, cause);
    }

    static PostgresUnavailableException configuredServerUnreachable(String url, String user, Throwable cause) {
        return new PostgresUnavailableException(
                "The configured PostgreSQL at " + url + " (user '" + user + "') did not accept a connection: "
                        + cause.getMessage()
                        + ". Check the server, or unset " + PostgresConfiguration.URL_PROPERTY + " / "
                        + PostgresConfiguration.URL_ENVIRONMENT_VARIABLE + " to use an embedded PostgreSQL.",
                cause);
    }

    static PostgresUnavailableException unreachable(String url, String user, Throwable cause) {
        return new PostgresUnavailableException(
                "The PostgreSQL at " + url + " (user '" + user + "') did not answer: " + cause.getMessage(), cause);
    }

    static PostgresUnavailableException embeddedStartFailed(Path directory, int port, Throwable cause) {
        return new PostgresUnavailableException(
                "Could not start an embedded PostgreSQL under " + directory
                        + (port == 0 ? " on a free port" : " on port " + port) + ": " + cause.getMessage()
                        + ". The server's own output is in " + EmbeddedServer.logFile(directory) + ".",
                cause);
    }
}
