package io.orderflow.broker.network;

import java.util.Locale;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;

/**
 * What each connection's threads (the one reading and handling its requests, and the {@link ReplyWriter}'s, started
 * by its first Produce) are:
 * the {@code connection.threads} setting.
 *
 * <ul>
 *   <li>{@link #PLATFORM} (the default): a read blocks in the kernel, so an arriving request wakes its thread
 *       directly. Measured with Kafka's EndToEndLatency on a 2-core VM, about 0.3 ms less per message than virtual
 *       threads (docs/benchmarks.md). Each connection costs one OS thread, two once it produces: fine for the hundreds to thousands of
 *       clients this broker is built for.
 *   <li>{@link #VIRTUAL}: a read parks the thread on the JDK's poller, and a request is handed to a carrier thread
 *       when it arrives, one or two more hand-overs per request; in exchange an idle connection costs a few
 *       kilobytes, for brokers with many thousands of connections.
 * </ul>
 */
public enum ConnectionThreads {
    PLATFORM,
    VIRTUAL;

    /** The value of {@code connection.threads}: {@code platform} or {@code virtual}. */
    public static ConnectionThreads parse(String value) {
        try {
            return valueOf(value.trim().toUpperCase(Locale.ROOT));
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException(
                    "Setting connection.threads=" + value + " is neither platform nor virtual", e);
        }
    }

    /**
     * Platform threads that have served a connection and wait, a minute at most, for the next one: a client that opens
     * and closes connections in a tight loop would otherwise have the acceptor create an OS thread for each, about half
     * a millisecond apiece, and a new client would wait behind that queue.
     */
    private static final ExecutorService REUSED_PLATFORM_THREADS = Executors.newCachedThreadPool(
            Thread.ofPlatform().name("conn-idle-", 0).daemon(true).factory());

    /**
     * Runs a connection's {@code task} on a thread of this kind named {@code name} while it runs: a platform thread
     * another connection has finished with, or a new one; a new virtual thread.
     */
    void run(String name, Runnable task) {
        switch (this) {
            case PLATFORM ->
                REUSED_PLATFORM_THREADS.execute(() -> {
                    Thread thread = Thread.currentThread();
                    String idle = thread.getName();
                    thread.setName(name);
                    try {
                        task.run();
                    } finally {
                        Thread.interrupted(); // the next connection starts with a clear flag
                        thread.setName(idle);
                    }
                });
            case VIRTUAL -> Thread.ofVirtual().name(name).start(task);
        }
    }

    /** Starts {@code task} on a new thread of this kind named {@code name}; platform threads are daemons. */
    Thread start(String name, Runnable task) {
        return switch (this) {
            case PLATFORM -> Thread.ofPlatform().name(name).daemon(true).start(task);
            case VIRTUAL -> Thread.ofVirtual().name(name).start(task);
        };
    }
}
