package io.orderflow.ops.load;

import java.net.URI;
import java.time.Duration;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.ITypeConverter;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;
import picocli.CommandLine.TypeConversionException;

/**
 * {@code ops/bin/load}'s command line, declared once: each option with its default and its check, from which picocli
 * builds {@code --help}. A value is checked as it is read (a whole number above 0, a probability from 0 to 1, a
 * customer distribution, an {@code OrderCreated} version mix, an http or https URL); a mix that sends nothing through
 * order-service at the rate given is refused once both are read ({@link LoadOptions}). Either ends the command with
 * exit code 2 and a message naming the option and the value. A later occurrence of an option wins.
 *
 * <p>Not thread-safe: one instance per command line.
 */
@Command(
        name = "ops/bin/load",
        sortOptions = false,
        sortSynopsis = false,
        usageHelpWidth = 120,
        description = {
            "POST /orders at a fixed rate (open loop) to a running platform, then pays, ships or cancels each accepted"
                    + " order as the mix says. Prints a progress line every second and, at the end, the achieved rate"
                    + " and latency percentiles. Exit code 0 when every request was answered as expected, 1 otherwise,"
                    + " 2 for a bad command line.",
            ""
        })
final class LoadCommandLine implements Callable<Integer> {

    /** The load generator's user on a secured cluster: it may write {@code orders} and nothing else. */
    static final String PRINCIPAL = "ops-load";

    @Spec
    private CommandSpec spec;

    @Option(
            names = "--url",
            paramLabel = "URL",
            defaultValue = "http://localhost:8080",
            converter = HttpUrl.class,
            description = "order-service (default: ${DEFAULT-VALUE})")
    private URI url;

    @Option(
            names = "--rate",
            paramLabel = "N",
            defaultValue = "100",
            converter = WholeNumber.Positive.class,
            description = "new orders per second (default: ${DEFAULT-VALUE})")
    private int rate;

    @Option(
            names = "--duration",
            paramLabel = "SECONDS",
            defaultValue = "60",
            converter = WholeNumber.Positive.class,
            description = "how long to send (default: ${DEFAULT-VALUE})")
    private int durationSeconds;

    @Option(
            names = "--customers",
            paramLabel = "C",
            defaultValue = "uniform",
            converter = Customers.class,
            description = "uniform: one of 100,000 customers; hot:SHARE: the customer customer-hot places SHARE of the"
                    + " orders (e.g. hot:0.5); few:N: one of N customers (e.g. few:10) (default: ${DEFAULT-VALUE})")
    private OrderBodies customers;

    @Option(
            names = "--out-of-stock",
            paramLabel = "SHARE",
            defaultValue = "0",
            converter = Probability.class,
            description = "the share of orders that also ask for sku-sold-out, which inventory has none of: they are"
                    + " rejected (default: ${DEFAULT-VALUE})")
    private double outOfStock;

    @Option(
            names = "--pay",
            paramLabel = "P",
            defaultValue = "" + LifecycleMix.PAY,
            converter = Probability.class,
            description = "probability that an accepted order is paid (default: ${DEFAULT-VALUE})")
    private double pay;

    @Option(
            names = "--ship",
            paramLabel = "P",
            defaultValue = "" + LifecycleMix.SHIP,
            converter = Probability.class,
            description = "probability that a paid order is shipped (default: ${DEFAULT-VALUE})")
    private double ship;

    @Option(
            names = "--cancel",
            paramLabel = "P",
            defaultValue = "" + LifecycleMix.CANCEL,
            converter = Probability.class,
            description = "probability that an order not shipped is cancelled (default: ${DEFAULT-VALUE})")
    private double cancel;

    @Option(
            names = "--max-in-flight",
            paramLabel = "N",
            defaultValue = "256",
            converter = WholeNumber.Positive.class,
            description = "new-order requests outstanding at most (default: ${DEFAULT-VALUE})")
    private int maxInFlight;

    @Option(
            names = "--event-versions",
            paramLabel = "MIX",
            defaultValue = "1.1:1",
            converter = EventVersions.class,
            description = "the share of new orders at each OrderCreated version, e.g. 1.0:0.2,1.1:0.8. order-service"
                    + " writes 1.1; the orders of other versions (1.0, or a breaking 2.0) are published on the topic"
                    + " orders directly, as another producer would, and have no lifecycle (default: ${DEFAULT-VALUE})")
    private EventVersionMix eventVersions;

    /** The cluster for the orders published directly, as the principal {@value #PRINCIPAL}. */
    @Mixin
    private ClusterOptions cluster;

    @Option(
            names = {"-h", "--help"},
            usageHelp = true,
            description = "print this text")
    private boolean help;

    /** The command line of {@code ops/bin/load}. */
    static CommandLine commandLine() {
        return new CommandLine(new LoadCommandLine()).setOverwrittenOptionsAllowed(true);
    }

    /** {@code args} as {@link LoadOptions}, refused with a {@link ParameterException} naming what is wrong. */
    static LoadOptions parse(String... args) {
        CommandLine commandLine = commandLine();
        commandLine.parseArgs(args);
        return commandLine.<LoadCommandLine>getCommand().options();
    }

    /** Runs the load: exit code 0 when every request was answered as expected, 1 otherwise. */
    @Override
    public Integer call() throws InterruptedException {
        return LoadGenerator.run(options(), System.out) ? 0 : 1;
    }

    private LoadOptions options() {
        try {
            return new LoadOptions(
                    url,
                    rate,
                    Duration.ofSeconds(durationSeconds),
                    customers.withOutOfStock(outOfStock),
                    pay,
                    ship,
                    cancel,
                    maxInFlight,
                    eventVersions,
                    cluster.cluster(PRINCIPAL));
        } catch (IllegalArgumentException e) { // a version mix that sends nothing through order-service at this rate
            throw new ParameterException(spec.commandLine(), e.getMessage(), e);
        }
    }

    /** A probability from 0 to 1. */
    static final class Probability implements ITypeConverter<Double> {
        @Override
        public Double convert(String value) {
            try {
                double number = Double.parseDouble(value);
                if (number >= 0 && number <= 1) {
                    return number;
                }
            } catch (NumberFormatException e) {
                // reported below
            }
            throw new TypeConversionException("'" + value + "' is not a probability from 0 to 1");
        }
    }

    /** {@link OrderBodies#parse}. */
    static final class Customers implements ITypeConverter<OrderBodies> {
        @Override
        public OrderBodies convert(String value) {
            try {
                return OrderBodies.parse(value);
            } catch (IllegalArgumentException e) {
                throw new TypeConversionException(e.getMessage());
            }
        }
    }

    /** {@link EventVersionMix#parse}. */
    static final class EventVersions implements ITypeConverter<EventVersionMix> {
        @Override
        public EventVersionMix convert(String value) {
            try {
                return EventVersionMix.parse(value);
            } catch (IllegalArgumentException e) {
                throw new TypeConversionException(e.getMessage());
            }
        }
    }
}
