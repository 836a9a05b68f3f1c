package io.orderflow.broker.layeringsample.network;

/** Part of a deliberately wrong sample that the layering rules must reject. */
public final class SampleListener {
    public int port() {
        return 9092;
    }
}
