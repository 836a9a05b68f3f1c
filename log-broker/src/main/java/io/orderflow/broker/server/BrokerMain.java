package io.orderflow.broker.server;

import java.nio.file.Path;
import java.time.Clock;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.CountDownLatch;

/**
 * {@code log-broker [--config FILE] [--KEY=VALUE ...]}: runs the broker in the foreground until SIGTERM or
 * Ctrl-C, then shuts it down cleanly.
 */
public final class BrokerMain {
    private BrokerMain() {}

    public static void main(String[] args) throws InterruptedException {
        Path configFile = null;
        Map<String, String> overrides = new LinkedHashMap<>();
        for (int i = 0; i < args.length; i++) {
            String arg = args[i];
            if (arg.equals("--help") || arg.equals("-h")) {
                printHelp();
                return;
            } else if (arg.equals("--config") && i + 1 < args.length) {
                configFile = Path.of(args[++i]);
            } else if (arg.startsWith("--") && arg.contains("=")) {
                overrides.put(arg.substring(2, arg.indexOf('=')), arg.substring(arg.indexOf('=') + 1));
            } else {
                System.err.println("Unrecognised argument " + arg + "; try --help");
                System.exit(2);
            }
        }
        BrokerConfig config;
        try {
            config = BrokerConfig.load(configFile, overrides);
        } catch (IllegalArgumentException e) {
            System.err.println(e.getMessage());
            System.exit(2);
            return;
        }
        Broker broker = Broker.start(config, Clock.systemUTC());
        CountDownLatch stopped = new CountDownLatch(1);
        Runtime.getRuntime().addShutdownHook(new Thread(() -> {
            broker.close();
            stopped.countDown();
        }));
        stopped.await();
    }

    private static void printHelp() {
        System.out.println("""
                log-broker: a single-node, durable log broker that speaks the Apache Kafka protocol.

                Usage: log-broker [--config FILE] [--KEY=VALUE ...]

                Settings (in FILE as KEY=VALUE lines, or as --KEY=VALUE; the command line wins):
                """);
        BrokerConfig.KEYS.forEach((key, doc) -> System.out.printf("  %-34s %s (default: %s)%n", key, doc[1], doc[0]));
        System.out.println("""

                Stops cleanly on SIGTERM or Ctrl-C (the next start then skips log validation).""");
    }
}
