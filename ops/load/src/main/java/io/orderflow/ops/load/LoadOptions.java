package io.orderflow.ops.load;

import io.orderflow.kafka.KafkaClientSettings;
import java.net.URI;
import java.time.Duration;

/**
 * What the load generator sends, from its command line ({@link LoadCommandLine}): {@code --url}, {@code --rate},
 * {@code --duration}, {@code --customers} and the lifecycle mix {@code --pay}, {@code --ship}, {@code --cancel}
 * (probabilities: an accepted order is paid with probability {@code pay}; a paid order is shipped with probability
 * {@code ship}; an order not shipped is cancelled with probability {@code cancel}), {@code --max-in-flight}, and the
 * {@code OrderCreated} versions {@code --event-versions} with the cluster ({@code --bootstrap-servers}, {@code
 * --command-config}) for those order-service does not write.
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
        KafkaClientSettings cluster) {

    /** The broker {@code --bootstrap-servers} names unless told otherwise. */
    public static final String DEFAULT_BOOTSTRAP_SERVERS = "localhost:9092";

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
                KafkaClientSettings.plaintext(DEFAULT_BOOTSTRAP_SERVERS));
    }

    public LoadOptions {
        if (Math.round(rate * eventVersions.viaOrderService()) < 1) {
            throw new IllegalArgumentException("--event-versions " + eventVersions + " at --rate " + rate
                    + " sends no order through order-service; at least one a second must go there ("
                    + EventVersionMix.CURRENT + ")");
        }
    }

    /**
     * {@code ops/bin/load}'s options as given ({@link LoadCommandLine} declares them, their defaults and checks).
     *
     * @throws picocli.CommandLine.ParameterException naming the option and value for an unknown option, a missing or
     *     bad value, or a version mix that sends nothing through order-service
     */
    public static LoadOptions parse(String... args) {
        return LoadCommandLine.parse(args);
    }
}
