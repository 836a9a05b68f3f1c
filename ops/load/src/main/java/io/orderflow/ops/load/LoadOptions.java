package io.orderflow.ops.load;

import java.net.URI;
import java.time.Duration;

/**
 * The load generator's command line: {@code --url}, {@code --rate}, {@code --duration}, {@code --customers} and the
 * lifecycle mix {@code --pay}, {@code --ship}, {@code --cancel} (probabilities: an accepted order is paid with
 * probability {@code pay}; a paid order is shipped with probability {@code ship}; an order not shipped is cancelled
 * with probability {@code cancel}), {@code --max-in-flight}, and the {@code OrderCreated} versions {@code
 * --event-versions} with the broker {@code --bootstrap-servers} for those order-service does not write.
 */
public record LoadOptions(
        URI url,
        int rate,
        Duration duration,
        OrderBodies customers,
        double pay,
        double ship,
        double cancel,
        int maxInFlight,
        EventVersionMix eventVersions,
        String bootstrapServers) {

    /** Every order through order-service, the broker at its default address. */
    public LoadOptions(
            URI url,
            int rate,
            Duration duration,
            OrderBodies customers,
            double pay,
            double ship,
            double cancel,
            int maxInFlight) {
        this(
                url,
                rate,
                duration,
                customers,
                pay,
                ship,
                cancel,
                maxInFlight,
                EventVersionMix.current(),
                "localhost:9092");
    }

    public LoadOptions {
        if (Math.round(rate * eventVersions.viaOrderService()) < 1) {
            throw new IllegalArgumentException("--event-versions " + eventVersions + " at --rate " + rate
                    + " sends no order through order-service; at least one a second must go there ("
                    + EventVersionMix.CURRENT + ")");
        }
    }

    public static final String USAGE = """
            Usage: ops/bin/load [--url URL] [--rate N] [--duration SECONDS] [--customers uniform|hot:SHARE|few:N]
                            [--pay P] [--ship P] [--cancel P] [--max-in-flight N]
                            [--event-versions MIX [--bootstrap-servers HOSTS]]

            POST /orders at a fixed rate (open loop) to a running platform, then pays, ships or cancels each
            accepted order as the mix says. Prints a progress line every second and, at the end, the achieved rate
            and latency percentiles. Exit code 0 when every request was answered as expected, 1 otherwise.

              --url URL             order-service (default http://localhost:8080)
              --rate N              new orders per second (default 100)
              --duration SECONDS    how long to send (default 60)
              --customers C         uniform: one of 100,000 customers (default); hot:SHARE: the customer
                                    customer-hot places SHARE of the orders (e.g. hot:0.5); few:N: one of N
                                    customers (e.g. few:10)
              --pay P               probability that an accepted order is paid (default 0.8)
              --ship P              probability that a paid order is shipped (default 0.6)
              --cancel P            probability that an order not shipped is cancelled (default 0.2)
              --max-in-flight N     new-order requests outstanding at most (default 256)
              --event-versions MIX  the share of new orders at each OrderCreated version, e.g. 1.0:0.2,1.1:0.8
                                    (default 1.1:1). order-service writes 1.1; the orders of other versions
                                    (1.0, or a breaking 2.0) are published on the topic orders directly, as
                                    another producer would, and have no lifecycle
              --bootstrap-servers H the broker for those (default localhost:9092)
            """;

    public static LoadOptions parse(String... args) {
        URI url = URI.create("http://localhost:8080");
        int rate = 100;
        Duration duration = Duration.ofSeconds(60);
        OrderBodies customers = OrderBodies.uniform();
        double pay = 0.8;
        double ship = 0.6;
        double cancel = 0.2;
        int maxInFlight = 256;
        EventVersionMix eventVersions = EventVersionMix.current();
        String bootstrapServers = "localhost:9092";
        for (int i = 0; i < args.length; i += 2) {
            String name = args[i];
            if (i + 1 >= args.length) {
                throw new IllegalArgumentException("'" + name + "' needs a value\n\n" + USAGE);
            }
            String value = args[i + 1];
            switch (name) {
                case "--url" -> url = URI.create(value);
                case "--rate" -> rate = positive(name, value);
                case "--duration" -> duration = Duration.ofSeconds(positive(name, value));
                case "--customers" -> customers = OrderBodies.parse(value);
                case "--pay" -> pay = probability(name, value);
                case "--ship" -> ship = probability(name, value);
                case "--cancel" -> cancel = probability(name, value);
                case "--max-in-flight" -> maxInFlight = positive(name, value);
                case "--event-versions" -> eventVersions = EventVersionMix.parse(value);
                case "--bootstrap-servers" -> bootstrapServers = value;
                default -> throw new IllegalArgumentException("Unknown option '" + name + "'\n\n" + USAGE);
            }
        }
        return new LoadOptions(
                url, rate, duration, customers, pay, ship, cancel, maxInFlight, eventVersions, bootstrapServers);
    }

    private static int positive(String name, String value) {
        try {
            int number = Integer.parseInt(value);
            if (number > 0) {
                return number;
            }
        } catch (NumberFormatException e) {
            // reported below
        }
        throw new IllegalArgumentException("'" + name + " " + value + "': must be a whole number above 0");
    }

    private static double probability(String name, String value) {
        try {
            double number = Double.parseDouble(value);
            if (number >= 0 && number <= 1) {
                return number;
            }
        } catch (NumberFormatException e) {
            // reported below
        }
        throw new IllegalArgumentException("'" + name + " " + value + "': must be a probability from 0 to 1");
    }
}
