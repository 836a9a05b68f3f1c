package io.orderflow.platform;

import java.nio.file.Path;

/** The launcher's command line. */
public record LaunchOptions(boolean help, Path postgresDirectory, int postgresPort) {

    public static final Path DEFAULT_POSTGRES_DIRECTORY = Path.of(".orderflow", "postgres");

    public static final String USAGE = """
            Usage: run-platform [--postgres-dir DIR] [--postgres-port PORT] [--help]

            Starts every part of the orderflow platform that exists, on this machine and without Docker, and
            keeps it running until Ctrl-C or SIGTERM, then stops it cleanly.

            Today that is PostgreSQL with one database per service (order, inventory, notification, analytics).

              --postgres-dir DIR    where the embedded PostgreSQL keeps its binaries, data and log
                                    (default: .orderflow/postgres under the working directory)
              --postgres-port PORT  port of the embedded PostgreSQL (default: any free port)
              --help                print this text

            To use an existing PostgreSQL instead of the embedded one, set
              ORDERFLOW_POSTGRES_URL       admin database URL, e.g. jdbc:postgresql://localhost:5432/postgres
              ORDERFLOW_POSTGRES_USER      default postgres; needs CREATEDB unless the databases exist
              ORDERFLOW_POSTGRES_PASSWORD  default empty
            (or the system properties orderflow.postgres.url, .user, .password).
            """;

    public static LaunchOptions defaults() {
        return new LaunchOptions(false, DEFAULT_POSTGRES_DIRECTORY, 0);
    }

    /** Accepts {@code --option value} and {@code --option=value}. */
    public static LaunchOptions parse(String... args) {
        LaunchOptions options = defaults();
        for (int i = 0; i < args.length; i++) {
            String argument = args[i];
            String name = argument.contains("=") ? argument.substring(0, argument.indexOf('=')) : argument;
            switch (name) {
                case "--help", "-h" ->
                    options = new LaunchOptions(true, options.postgresDirectory, options.postgresPort);
                case "--postgres-dir" -> {
                    String value = argument.contains("=") ? valueAfterEquals(argument) : nextValue(args, i++);
                    options = new LaunchOptions(options.help, Path.of(value), options.postgresPort);
                }
                case "--postgres-port" -> {
                    String value = argument.contains("=") ? valueAfterEquals(argument) : nextValue(args, i++);
                    options = new LaunchOptions(options.help, options.postgresDirectory, port(value));
                }
                default -> throw new InvalidArgumentsException("Unknown argument '" + argument + "'.");
            }
        }
        return options;
    }

    private static String valueAfterEquals(String argument) {
        String value = argument.substring(argument.indexOf('=') + 1);
        if (value.isEmpty()) {
            throw new InvalidArgumentsException("'" + argument + "' needs a value after '='.");
        }
        return value;
    }

    private static String nextValue(String[] args, int optionIndex) {
        if (optionIndex + 1 >= args.length) {
            throw new InvalidArgumentsException("'" + args[optionIndex] + "' needs a value.");
        }
        return args[optionIndex + 1];
    }

    private static int port(String value) {
        try {
            int port = Integer.parseInt(value);
            if (port >= 1 && port <= 65535) {
                return port;
            }
        } catch (NumberFormatException e) {
            // reported below
        }
        throw new InvalidArgumentsException(
                "'--postgres-port " + value + "': the port must be a number from 1 to 65535.");
    }
}
