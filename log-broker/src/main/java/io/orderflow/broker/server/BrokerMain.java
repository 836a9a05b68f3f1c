package io.orderflow.broker.server;

import java.nio.file.Path;
import java.time.Clock;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * {@code log-broker [--config FILE] [--log-format=json|text] [--KEY=VALUE ...]}: runs the broker in the
 * foreground until SIGTERM or Ctrl-C, then shuts it down cleanly. Exit codes: 0 after a clean stop or
 * {@code --help}, 1 if the broker did not start, 2 for a bad command line.
 *
 * <p>No logger is created before the log format is installed (see {@link LogFormat}): this class has no static
 * logger for that reason.
 */
public final class BrokerMain {
    private BrokerMain() {}

    public static void main(String[] args) throws InterruptedException {
        Path configFile = null;
        String logFormat = null;
        Map<String, String> overrides = new LinkedHashMap<>();
        for (int i = 0; i < args.length; i++) {
            String arg = args[i];
            if (arg.equals("--help") || arg.equals("-h")) {
                printHelp();
                return;
            } else if (arg.equals("--config") && i + 1 < args.length) {
                configFile = Path.of(args[++i]);
            } else if (arg.startsWith("--log-format=")) {
                logFormat = arg.substring("--log-format=".length());
            } else if (arg.startsWith("--") && arg.contains("=")) {
                overrides.put(arg.substring(2, arg.indexOf('=')), arg.substring(arg.indexOf('=') + 1));
            } else {
                System.err.println("Unrecognised argument " + arg + "; try --help");
                System.exit(2);
            }
        }
        BrokerConfig config;
        try {
            LogFormat.choose(logFormat, System.getProperty(LogFormat.PROPERTY), System.getenv(LogFormat.PROPERTY))
                    .install();
            config = BrokerConfig.load(configFile, overrides);
        } catch (IllegalArgumentException e) {
            System.err.println(e.getMessage());
            System.exit(2);
            return;
        }
        Logger log = LoggerFactory.getLogger(BrokerMain.class);
        Broker broker;
        try {
            broker = Broker.start(config, Clock.systemUTC());
        } catch (RuntimeException e) {
            log.atError()
                    .setCause(e)
                    .addKeyValue("listenHost", config.listenHost())
                    .addKeyValue("port", config.port())
                    .addKeyValue("metricsPort", config.metricsPort())
                    .addKeyValue("dataDir", config.dataDir().toAbsolutePath())
                    .log("Broker did not start");
            System.exit(1);
            return;
        }
        CountDownLatch stopped = new CountDownLatch(1);
        Runtime.getRuntime()
                .addShutdownHook(new Thread(
                        () -> {
                            broker.close();
                            stopped.countDown();
                        },
                        "broker-shutdown"));
        stopped.await();
    }

    private static void printHelp() {
        System.out.println("""
                log-broker: a single-node, durable log broker that speaks the Apache Kafka protocol.

                Usage: log-broker [--config FILE] [--log-format=json|text] [--KEY=VALUE ...]

                Logging (on stderr):
                  --log-format=json                  one JSON object per line (the default): timestamp (epoch ms),
                                                     level, threadName, loggerName, kvpList (the event's fields),
                                                     formattedMessage, throwable
                  --log-format=text                  one plain line per event: time, level, thread, logger,
                                                     message, key="value" fields
                  The environment variable LOG_FORMAT (json or text) sets the default. A logback configuration
                  of your own: -Dlogback.configurationFile=FILE.

                Settings (in FILE as KEY=VALUE lines, or as --KEY=VALUE; the command line wins):
                """);
        BrokerConfig.KEYS.forEach((key, doc) -> System.out.printf("  %-34s %s (default: %s)%n", key, doc[1], doc[0]));
        System.out.println("""

                Stops cleanly on SIGTERM or Ctrl-C (the next start then skips log validation).""");
    }
}
