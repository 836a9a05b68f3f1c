package io.orderflow.broker.server;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.LoggerContext;
import ch.qos.logback.classic.encoder.JsonEncoder;
import ch.qos.logback.classic.encoder.PatternLayoutEncoder;
import ch.qos.logback.classic.spi.Configurator;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.ConsoleAppender;
import ch.qos.logback.core.encoder.Encoder;
import ch.qos.logback.core.spi.ContextAwareBase;
import java.util.Locale;

/**
 * The runnable broker's logging, set up in code: one JSON object per line on stderr (logback's
 * {@link JsonEncoder}), or one plain line per event; INFO for the broker, WARN for kafka-clients (only the wire
 * codec here). The same formats as {@code logback-json.xml} and {@code logback-text.xml}, which the platform
 * launcher includes from its own configuration.
 *
 * <p>Why code and not those XML files: logback's XML configurator (Joran) costs the JVM 0.3-0.6 s of class
 * loading and parsing before the first log line, half of the broker's start-up budget; this costs about 30 ms.
 *
 * <p>Found by logback through {@code META-INF/services}, so anything with {@code log-broker.jar} and logback on its
 * classpath sees it; it only acts when {@link LogFormat#install()} has chosen a format (i.e. in
 * {@link BrokerMain}) and nobody named a {@code logback.configurationFile}. Otherwise it steps aside and logback
 * configures itself as usual (the platform's {@code logback.xml}, a user's file).
 */
public final class BrokerLogConfigurator extends ContextAwareBase implements Configurator {

    @Override
    public ExecutionStatus configure(LoggerContext context) {
        String format = System.getProperty(LogFormat.SELECTED);
        if (format == null || System.getProperty("logback.configurationFile") != null) {
            return ExecutionStatus.INVOKE_NEXT_IF_ANY;
        }
        ConsoleAppender<ILoggingEvent> console = new ConsoleAppender<>();
        console.setContext(context);
        console.setName("CONSOLE");
        console.setTarget("System.err");
        console.setEncoder(encoder(LogFormat.valueOf(format.toUpperCase(Locale.ROOT)), context));
        console.start();
        ch.qos.logback.classic.Logger root = context.getLogger(org.slf4j.Logger.ROOT_LOGGER_NAME);
        root.setLevel(Level.INFO);
        root.addAppender(console);
        context.getLogger("org.apache.kafka").setLevel(Level.WARN);
        return ExecutionStatus.DO_NOT_INVOKE_NEXT_IF_ANY;
    }

    private static Encoder<ILoggingEvent> encoder(LogFormat format, LoggerContext context) {
        if (format == LogFormat.TEXT) {
            PatternLayoutEncoder text = new PatternLayoutEncoder();
            text.setContext(context);
            text.setPattern("%d{yyyy-MM-dd'T'HH:mm:ss.SSSXXX} %-5level [%thread] %logger{0} - %msg %kvp%n");
            text.start();
            return text;
        }
        JsonEncoder json = new JsonEncoder();
        json.setContext(context);
        json.setWithSequenceNumber(false);
        json.setWithNanoseconds(false);
        json.setWithContext(false);
        json.setWithMDC(false);
        json.setWithMessage(false);
        json.setWithArguments(false);
        json.setWithFormattedMessage(true);
        json.start();
        return json;
    }
}
