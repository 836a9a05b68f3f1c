package io.orderflow.broker.layeringsample.log;

import io.orderflow.broker.layeringsample.network.SampleListener;

/** Storage that reaches into the network layer: the violation the layering rules exist to catch. */
public final class SampleSegment {
    public int wrong() {
        return new SampleListener().port();
    }
}
