package io.orderflow.broker.group;

import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * How a request thread waits for a {@link GroupCoordinator} answer: at most a given time, never forever.
 * The coordinator's own deadlines answer parked requests long before the limit; the limit only matters if
 * the coordinator stops ticking or the offsets log stops making records durable.
 */
public final class BoundedWait {
    private BoundedWait() {}

    /**
     * @return the answer, or empty if it did not come within {@code limitMs} (or the thread was interrupted;
     *     its interrupt flag is then set again)
     * @throws RuntimeException the failure itself when the future failed (a typed storage failure for the
     *     handlers' error table, or a bug), so the caller sees its type rather than a wrapper
     */
    public static <T> Optional<T> await(CompletableFuture<T> answer, long limitMs) {
        try {
            return Optional.of(answer.get(limitMs, TimeUnit.MILLISECONDS));
        } catch (TimeoutException e) {
            return Optional.empty();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return Optional.empty();
        } catch (ExecutionException e) {
            Throwable cause =
                    e.getCause() instanceof CompletionException c && c.getCause() != null ? c.getCause() : e.getCause();
            if (cause instanceof RuntimeException runtime) {
                throw runtime;
            }
            if (cause instanceof Error error) {
                throw error;
            }
            throw new IllegalStateException("Group coordinator request failed: " + cause, cause);
        }
    }
}
