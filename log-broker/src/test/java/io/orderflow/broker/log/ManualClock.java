package io.orderflow.broker.log;

import java.time.Clock;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZoneOffset;

/** A clock that moves only when a test moves it. */
public final class ManualClock extends Clock {
    private volatile long millis;

    public ManualClock(long startMillis) {
        this.millis = startMillis;
    }

    public void advance(long ms) {
        millis += ms;
    }

    public void set(long ms) {
        millis = ms;
    }

    @Override
    public long millis() {
        return millis;
    }

    @Override
    public Instant instant() {
        return Instant.ofEpochMilli(millis);
    }

    @Override
    public ZoneId getZone() {
        return ZoneOffset.UTC;
    }

    @Override
    public Clock withZone(ZoneId zone) {
        return this;
    }
}
