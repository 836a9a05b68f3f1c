package io.orderflow.broker.group;

import java.util.Optional;
import java.util.concurrent.CompletableFuture;
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
     * @throws IllegalStateException if the future failed, which the coordinator's futures do not do
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
            throw new IllegalStateException("Group coordinator request failed: " + e.getCause(), e.getCause());
        }
    }
}
