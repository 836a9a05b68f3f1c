package io.orderflow.broker.server;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What the broker's process does with an {@link Error} on any of its threads (an OutOfMemoryError, a
 * StackOverflowError, a failed assertion): it stops at once, with one log line and exit code {@link #EXIT_CODE}.
 *
 * <p>Design. After an Error the JVM's state is suspect: an allocation or a lock left half done, a thread that owned
 * a partition's appends gone. A broker that keeps its process but no longer answers is the worst outcome, because
 * nothing restarts a process that is alive. A stopped one is restarted on its log by whatever supervises it ({@code
 * ./run-platform}, compose's {@code restart: unless-stopped}, systemd), and recovery makes the log whole: nothing
 * acknowledged is lost, since an acknowledged append was on disk. So {@link BrokerMain} installs {@link #uncaught} as
 * every thread's last handler, and the broker's scheduled work, whose Errors an executor would otherwise keep to
 * itself, hands them to {@link #stop}. The exit code is the one {@code -XX:+ExitOnOutOfMemoryError} uses, which every
 * launcher of the broker also sets, so that an OutOfMemoryError caught inside a library stops the broker too.
 * Exceptions are not Errors: a connection's thread logs one and closes its connection; one that reaches here is
 * logged and only its thread ends.
 */
public final class FatalErrors {
    /** The broker's exit code after an Error, as the JVM's after {@code -XX:+ExitOnOutOfMemoryError}. */
    public static final int EXIT_CODE = 3;

    private static final Logger log = LoggerFactory.getLogger(FatalErrors.class);

    private FatalErrors() {}

    /** Makes {@link #uncaught} the handler of every thread that has none of its own. */
    static void install() {
        Thread.setDefaultUncaughtExceptionHandler(FatalErrors::uncaught);
    }

    /** Stops the process on an Error; logs anything else. */
    static void uncaught(Thread thread, Throwable failure) {
        if (failure instanceof Error error) {
            stop(thread, error);
        }
        log.atError()
                .setCause(failure)
                .addKeyValue("thread", thread.getName())
                .log("A broker thread ended with an exception");
    }

    /** Logs one line naming {@code error} and its thread, then halts the JVM with {@link #EXIT_CODE}. */
    public static void stop(Thread thread, Error error) {
        try {
            log.atError()
                    .addKeyValue("thread", thread.getName())
                    .addKeyValue("error", String.valueOf(error))
                    .addKeyValue("exitCode", EXIT_CODE)
                    .log("Stopping the broker at once: a fatal error on a broker thread");
        } catch (Throwable ignored) {
            // Logging failed too (an OutOfMemoryError can make it fail): the exit code still says why.
        } finally {
            Runtime.getRuntime().halt(EXIT_CODE);
        }
    }
}
