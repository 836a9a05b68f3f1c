package io.orderflow.process;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

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

    /** {@code count} distinct ports free on the loopback interface right now. */
    static List<Integer> freeLoopbackPorts(int count) {
        List<ServerSocket> sockets = new ArrayList<>();
        try {
            List<Integer> ports = new ArrayList<>();
            for (int i = 0; i < count; i++) {
                ServerSocket socket = new ServerSocket(0, 1, InetAddress.getByName(RunningBroker.HOST));
                sockets.add(socket);
                ports.add(socket.getLocalPort());
            }
            return ports;
        } catch (IOException e) {
            throw new UncheckedIOException("Cannot find free loopback ports", e);
        } finally {
            for (ServerSocket socket : sockets) {
                try {
                    socket.close();
                } catch (IOException ignored) {
                    // the port is released either way
                }
            }
        }
    }
}
