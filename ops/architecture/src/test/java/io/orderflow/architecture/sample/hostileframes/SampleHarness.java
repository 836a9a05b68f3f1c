package io.orderflow.architecture.sample.hostileframes;

import io.orderflow.architecture.sample.broker.SampleLog;

/** Wrong on purpose: a harness that calls into the broker's storage instead of sending it frames over TCP. */
public class SampleHarness {
    public int send(SampleLog log) {
        return log.append("frame");
    }
}
