package io.orderflow.consumer.quarkus;

import io.orderflow.consumer.ServiceConsumer;

/**
 * The bean whose consumer the drills' slowdown switch ({@link DrillResource}) slows: {@link OrderEventChannels} in
 * the services consuming {@code orders}, order-service's consumer of inventory's answers there. One per service.
 */
public interface SlowdownTarget {

    /** The service's consumer of its topic and retry topics. */
    ServiceConsumer consumer();
}
