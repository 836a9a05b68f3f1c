package io.orderflow.consumer.quarkus;

import io.orderflow.consumer.RehearsalEvents;
import io.orderflow.consumer.ServiceConsumer;
import jakarta.inject.Singleton;
import java.time.Clock;
import org.eclipse.microprofile.health.HealthCheck;
import org.eclipse.microprofile.health.HealthCheckResponse;
import org.eclipse.microprofile.health.Readiness;
import org.jboss.logging.Logger;

/**
 * A consuming service's handler path, run at start before the service reports ready, so that its first real batches
 * find it compiled.
 *
 * <p>A JVM interprets a method until it has run some hundred times; on a laptop that runs the whole platform, every
 * service compiles at once, on the same cores, as the first orders arrive, and a consumer that compiles while it
 * applies its first batches takes the CPU that order-service needs to answer them. So the service rehearses
 * {@code orderflow.consumer.warm-up.rounds} rounds of {@link RehearsalEvents} (two made-up orders, every lifecycle
 * event) through {@link io.orderflow.consumer.EventBatchProcessor#rehearse}: decoding, the claim of their ids and the
 * service's handler, each round in one transaction that is rolled back. Nothing of it stays: no effect, no claimed id,
 * no record on a topic, no count in the consumer meters.
 *
 * <p>{@link OrderEventChannels} begins it once it has the service's consumer. Readiness ({@code /q/health/ready})
 * reports this check down until the rounds are done, with the rounds completed
 * (and a failure, if one stopped them) in its data. The channels consume meanwhile: a record that arrives during the
 * warm-up is applied as always. A round that fails ends the warm-up with a warning and the service reports ready
 * anyway: a warm-up is an optimisation, never a reason not to serve.
 */
@Singleton
@Readiness
public class ConsumerWarmUp implements HealthCheck {

    private static final Logger LOG = Logger.getLogger(ConsumerWarmUp.class);
    private static final String NAME = "warm-up";

    private final int rounds;
    private volatile int completed;
    private volatile String failure;
    private volatile boolean done;
    private boolean begun;

    ConsumerWarmUp(ConsumerConfig config) {
        this.rounds = config.warmUp().rounds();
        this.done = rounds == 0;
    }

    /** Starts the rounds on a thread of their own, once {@code consumer} (the service's, when its channels start). */
    synchronized void begin(ServiceConsumer consumer) {
        if (!done && !begun) {
            begun = true;
            Thread.ofPlatform().name("warm-up").daemon(true).start(() -> run(consumer));
        }
    }

    @Override
    public HealthCheckResponse call() {
        var response = HealthCheckResponse.named(NAME)
                .status(done)
                .withData("rounds", rounds)
                .withData("completed", completed);
        return (failure == null ? response : response.withData("failure", failure)).build();
    }

    private void run(ServiceConsumer consumer) {
        long started = System.nanoTime();
        RehearsalEvents events = new RehearsalEvents(Clock.systemUTC());
        try {
            for (int round = 0; round < rounds; round++) {
                consumer.rehearse(events.round(round));
                completed = round + 1;
            }
            LOG.infof(
                    "warmed up: %d rounds of the handler path in %d ms",
                    rounds, (System.nanoTime() - started) / 1_000_000);
        } catch (Exception e) {
            failure = String.valueOf(e);
            LOG.warnf(e, "warm-up stopped after %d of %d rounds; the service is ready, but cold", completed, rounds);
        } finally {
            done = true;
        }
    }
}
