package io.orderflow.broker.server;

import java.io.IOException;
import java.net.Socket;

/**
 * {@link BrokerMain} with its arguments, and once its Kafka port accepts connections, a {@link StackOverflowError}
 * thrown on a thread of its own: what an Error on any thread of a running broker does to its process. A JVM's main
 * class for {@link FatalErrorsTest}.
 */
final class BrokerMainWithAnError {
    private BrokerMainWithAnError() {}

    public static void main(String[] args) throws Exception {
        Thread broker = Thread.ofPlatform().name("broker-main").start(() -> BrokerMain.main(args));
        int port = port(args);
        long deadline = System.nanoTime() + 60_000_000_000L;
        while (!accepts(port)) {
            if (System.nanoTime() > deadline) {
                throw new IllegalStateException("The broker did not listen on port " + port + " within 60 s");
            }
            Thread.sleep(50); // polling a port that is not open yet
        }
        Thread.ofPlatform().name("conn-7").start(() -> {
            throw new StackOverflowError("thrown by a test on a broker thread");
        });
        broker.join();
    }

    private static int port(String[] args) {
        for (String arg : args) {
            if (arg.startsWith("--port=")) {
                return Integer.parseInt(arg.substring("--port=".length()));
            }
        }
        throw new IllegalArgumentException("No --port= among the arguments");
    }

    private static boolean accepts(int port) {
        try (Socket socket = new Socket("127.0.0.1", port)) {
            return true;
        } catch (IOException notYet) {
            return false;
        }
    }
}
