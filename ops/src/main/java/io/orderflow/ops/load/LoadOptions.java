package io.orderflow.ops.load;

import io.orderflow.ops.bench.orders.OrderBodies;
import java.net.URI;
import java.time.Duration;

/**
 * The load generator's command line: {@code --url}, {@code --rate}, {@code --duration}, {@code --customers} and the
 * lifecycle mix {@code --pay}, {@code --ship}, {@code --cancel} (probabilities: an accepted order is paid with
 * probability {@code pay}; a paid order is shipped with probability {@code ship}; an order not shipped is cancelled
 * with probability {@code cancel}), and {@code --max-in-flight}.
 */
public record LoadOptions(
        URI url,
        int rate,
        Duration duration,
        OrderBodies customers,
        double pay,
        double ship,
        double cancel,
        int maxInFlight) {

    public static final String USAGE = """
            Usage: ops/load [--url URL] [--rate N] [--duration SECONDS] [--customers uniform|hot:SHARE|few:N]
                            [--pay P] [--ship P] [--cancel P] [--max-in-flight N]

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
                default -> throw new IllegalArgumentException("Unknown option '" + name + "'\n\n" + USAGE);
            }
        }
        return new LoadOptions(url, rate, duration, customers, pay, ship, cancel, maxInFlight);
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
