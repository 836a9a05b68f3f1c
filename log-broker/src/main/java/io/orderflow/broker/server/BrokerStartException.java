package io.orderflow.broker.server;

import java.nio.file.Path;

/**
 * The broker did not start. Names the step that failed ("bind the Kafka listener to 0.0.0.0:9092"), the
 * listener and data directory it was started with, and keeps the failure as its cause. Everything that start-up
 * had opened before the failure is closed again by the time this is thrown, so the same data directory and
 * ports can be used at once.
 */
public final class BrokerStartException extends RuntimeException {
    private final String step;
    private final String listener;
    private final Path dataDir;

    BrokerStartException(String step, String listener, Path dataDir, Throwable cause) {
        super(
                "Broker did not start: cannot " + step + " (listener " + listener + ", data in " + dataDir + "): "
                        + cause,
                cause);
        this.step = step;
        this.listener = listener;
        this.dataDir = dataDir;
    }

    /** What start-up was doing when it failed, e.g. "bind the Kafka listener to 0.0.0.0:9092". */
    public String step() {
        return step;
    }

    /** The Kafka listener's {@code host:port} as configured (port 0: any free one). */
    public String listener() {
        return listener;
    }

    public Path dataDir() {
        return dataDir;
    }
}
