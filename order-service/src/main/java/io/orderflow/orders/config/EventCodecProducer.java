package io.orderflow.orders.config;

import io.orderflow.contracts.EventCodec;
import jakarta.enterprise.inject.Produces;
import jakarta.inject.Singleton;

/** The event-contracts codec for this build's order events; immutable and thread-safe, so one per application. */
public class EventCodecProducer {

    @Produces
    @Singleton
    EventCodec eventCodec() {
        return new EventCodec();
    }
}
