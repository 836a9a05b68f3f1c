package io.orderflow.broker.server;

import java.nio.file.Path;
import java.time.Clock;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.ArgGroupSpec;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Model.OptionSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

/**
 * {@code log-broker [--config FILE] [--log-format=json|text] [--KEY=VALUE ...]}: runs the broker in the
 * foreground until SIGTERM or Ctrl-C, then shuts it down cleanly. Exit codes: 0 after a clean stop or
 * {@code --help}, 1 if the broker did not start, 2 for a bad command line (an unknown option or setting, a value
 * {@link BrokerConfig} or {@link LogFormat} refuses, an unreadable {@code --config} file), 3 after an Error on any of
 * its threads ({@link FatalErrors}; also the JVM's own code under {@code -XX:+ExitOnOutOfMemoryError}).
 *
 * <p>The command line is picocli's: {@code --config} and {@code --log-format} are declared here, and one option per
 * setting of {@link BrokerConfig#KEYS} is added from that table, with its meaning and default, so {@code --help}
 * lists the settings from the one place they are documented and an unknown {@code --KEY} is refused by name. A later
 * occurrence of an option wins.
 *
 * <p>No logger is created before the log format is installed (see {@link LogFormat}): this class has no static
 * logger for that reason. The format and the settings are both checked before it is installed ({@link BrokerConfig}
 * creates no logger), so a bad command line leaves logging as it was.
 */
@Command(
        name = "log-broker",
        customSynopsis = "log-broker [--config FILE] [--log-format=json|text] [--KEY=VALUE ...]",
        description = "A single-node, durable log broker that speaks the Apache Kafka protocol.%n",
        usageHelpWidth = 120,
        sortOptions = false,
        footer = {
            "%nA logback configuration of your own: -Dlogback.configurationFile=FILE.",
            "Stops cleanly on SIGTERM or Ctrl-C (the next start then skips log validation).",
            "Example: log-broker --log-format=text --port=19092 --log.dirs=/tmp/broker"
        })
public final class BrokerMain implements Callable<Integer> {

    @Spec
    private CommandSpec spec;

    @Option(
            names = "--config",
            paramLabel = "FILE",
            description = "settings as KEY=VALUE lines (a properties file); a --KEY=VALUE given here wins")
    private Path configFile;

    @Option(
            names = "--log-format",
            paramLabel = "json|text",
            description = {
                "how events are logged on stderr.",
                "json: one JSON object per line: timestamp (epoch ms), level, threadName, loggerName, kvpList (the"
                        + " event's fields), formattedMessage, throwable.",
                "text: one plain line per event: time, level, thread, logger, message, key=\"value\" fields.",
                "(default: the environment variable LOG_FORMAT, json or text; else json)"
            })
    private String logFormat;

    @Option(
            names = {"-h", "--help"},
            usageHelp = true,
            description = "print this text")
    private boolean help;

    private BrokerMain() {}

    public static void main(String[] args) {
        int exitCode = commandLine().execute(args);
        if (exitCode != 0) {
            System.exit(exitCode); // after a clean stop main returns: the JVM is already shutting down
        }
    }

    /** The broker's command line: the options above and one {@code --KEY=VALUE} option per setting. */
    static CommandLine commandLine() {
        CommandLine commandLine = new CommandLine(new BrokerMain());
        ArgGroupSpec.Builder settings = ArgGroupSpec.builder()
                .heading("%nSettings (in FILE as KEY=VALUE lines, or as --KEY=VALUE; the command line wins):%n")
                .validate(false)
                .exclusive(false);
        BrokerConfig.KEYS.forEach((key, doc) -> settings.addArg(OptionSpec.builder("--" + key)
                .paramLabel("VALUE")
                .type(String.class)
                .defaultValue(doc[0])
                .description(doc[1] + " (default: ${DEFAULT-VALUE})")
                .build()));
        commandLine.getCommandSpec().addArgGroup(settings.build());
        commandLine.setOverwrittenOptionsAllowed(true);
        return commandLine;
    }

    @Override
    public Integer call() throws InterruptedException {
        LogFormat format;
        BrokerConfig config;
        try {
            format = LogFormat.choose(
                    logFormat, System.getProperty(LogFormat.PROPERTY), System.getenv(LogFormat.PROPERTY));
            config = BrokerConfig.load(configFile, givenSettings());
        } catch (IllegalArgumentException e) {
            throw new ParameterException(spec.commandLine(), e.getMessage(), e);
        }
        format.install();
        FatalErrors.install();
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
            return 1;
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
        return 0;
    }

    /** The settings given as {@code --KEY=VALUE}, the last one of each key; the defaults are left to BrokerConfig. */
    private Map<String, String> givenSettings() {
        Map<String, String> given = new LinkedHashMap<>();
        for (OptionSpec option : spec.commandLine().getParseResult().matchedOptions()) {
            String key = option.longestName().substring(2);
            if (BrokerConfig.KEYS.containsKey(key)) {
                given.put(key, option.getValue());
            }
        }
        return given;
    }
}
