package io.orderflow.process;

import java.io.IOException;
import java.nio.file.Path;

/** Starts one kind of broker as a child JVM on free loopback ports, with its data under a given directory. */
public sealed interface BrokerLauncher permits ApacheKafkaLauncher, OrderflowBrokerLauncher {

    /**
     * Partitions of auto-created topics (and of CreateTopics without a count) on the benchmarks' brokers, ours and
     * Apache Kafka alike: six, as the platform creates {@code orders} and {@code inventory}.
     */
    int DEFAULT_PARTITIONS = 6;

    /** How the broker is named in the output. */
    String name();

    /** The JVM and broker settings it runs with, for the header of the output. */
    String describe();

    /**
     * Starts a fresh broker with its data and configuration under {@code runDir} (empty; the caller deletes it
     * afterwards) and returns once it answers requests; its output goes to {@code logFile}.
     */
    RunningBroker start(Path runDir, Path logFile) throws IOException;
}
