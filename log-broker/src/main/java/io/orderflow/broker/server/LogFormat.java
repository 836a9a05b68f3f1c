package io.orderflow.broker.server;

import java.util.Locale;

/**
 * How the runnable broker writes its log: {@code json}, one JSON object per line for log collectors (the
 * default), or {@code text}, one plain line per event for people. {@link BrokerLogConfigurator} sets logback up
 * for the chosen one.
 *
 * <p>The choice must be made before the first logger is created: SLF4J binds to logback, and logback reads its
 * configuration, on the first {@code LoggerFactory.getLogger} call. {@link BrokerMain} therefore calls
 * {@link #install()} before anything that logs. A {@code logback.configurationFile} given on the command line
 * wins over ours. Only the runnable broker does this; a process that embeds {@link Broker} configures its own
 * logging.
 */
enum LogFormat {
    JSON,
    TEXT;

    /** The logback property (a system property or an environment variable) that selects the format. */
    static final String PROPERTY = "LOG_FORMAT";

    /** The system property through which {@link #install()} tells {@link BrokerLogConfigurator} the format. */
    static final String SELECTED = "orderflow.broker.log-format";

    /**
     * The format asked for: {@code --log-format} if given, else the {@value #PROPERTY} system property, else the
     * environment variable of that name, else JSON.
     *
     * @throws IllegalArgumentException naming the value and where it came from, when it is neither json nor text
     */
    static LogFormat choose(String fromCommandLine, String fromSystemProperty, String fromEnvironment) {
        if (fromCommandLine != null) {
            return parse(fromCommandLine, "--log-format");
        }
        if (fromSystemProperty != null && !fromSystemProperty.isBlank()) {
            return parse(fromSystemProperty, "system property " + PROPERTY);
        }
        if (fromEnvironment != null && !fromEnvironment.isBlank()) {
            return parse(fromEnvironment, "environment variable " + PROPERTY);
        }
        return JSON;
    }

    private static LogFormat parse(String value, String source) {
        return switch (value.trim().toLowerCase(Locale.ROOT)) {
            case "json" -> JSON;
            case "text" -> TEXT;
            default ->
                throw new IllegalArgumentException(
                        "Unknown log format '" + value + "' (from " + source + "); use json or text");
        };
    }

    /** Selects this format for {@link BrokerLogConfigurator} (a {@code logback.configurationFile} still wins). */
    void install() {
        String value = name().toLowerCase(Locale.ROOT);
        System.setProperty(PROPERTY, value);
        System.setProperty(SELECTED, value);
    }
}
