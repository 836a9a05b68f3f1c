package io.orderflow.broker.network;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

class RequestMemoryTest {
    private static final int KIB = 1024;
    private static final Duration WITHIN = Duration.ofSeconds(10);

    private final ExecutorService connections = Executors.newVirtualThreadPerTaskExecutor();

    @AfterEach
    void stop() {
        connections.shutdownNow();
    }

    /** A connection's thread asking for {@code bytes}; completes with whether it got them. */
    private CompletableFuture<Boolean> reserveElsewhere(RequestMemory memory, int bytes, AtomicBoolean open) {
        return CompletableFuture.supplyAsync(
                () -> {
                    try {
                        return memory.reserve(bytes, open::get);
                    } catch (InterruptedException e) {
                        throw new IllegalStateException(e);
                    }
                },
                connections);
    }

    @Test
    void theDefaultBudgetIsAQuarterOfTheHeapAndMinusOneIsUnbounded() {
        assertThat(RequestMemory.of(0, 512L * 1024 * 1024).budget()).isEqualTo(128L * 1024 * 1024);
        assertThat(RequestMemory.of(-1, 512L * 1024 * 1024).budget()).isEqualTo(Long.MAX_VALUE);
        assertThat(RequestMemory.of(5_000_000, 512L * 1024 * 1024).budget()).isEqualTo(5_000_000);
    }

    @Test
    void aFrameLargerThanTheWholeBudgetNeverFitsButASmallOneAlwaysDoes() {
        RequestMemory memory = new RequestMemory(100 * KIB);

        assertThat(memory.fits(100 * KIB)).isTrue();
        assertThat(memory.fits(100 * KIB + 1)).isFalse();
        assertThat(new RequestMemory(1).fits(RequestMemory.SMALL_FRAME_BYTES)).isTrue();
        assertThatThrownBy(() -> memory.reserve(200 * KIB, () -> true)).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void aSmallFrameIsCountedButNeverWaitsWhenTheBudgetIsSpent() throws Exception {
        RequestMemory memory = new RequestMemory(100 * KIB);
        assertThat(memory.reserve(100 * KIB, () -> true)).isTrue();

        assertThat(memory.reserve(RequestMemory.SMALL_FRAME_BYTES, () -> true)).isTrue();

        assertThat(memory.reserved()).isEqualTo(100 * KIB + RequestMemory.SMALL_FRAME_BYTES);
    }

    @Test
    void aLargeFrameWaitsUntilTheBytesBeforeItAreGivenBack() throws Exception {
        RequestMemory memory = new RequestMemory(100 * KIB);
        assertThat(memory.reserve(80 * KIB, () -> true)).isTrue();

        CompletableFuture<Boolean> waiting = reserveElsewhere(memory, 40 * KIB, new AtomicBoolean(true));
        await().atMost(WITHIN).until(() -> memory.waitingFrames() == 1);
        assertThat(waiting).isNotDone();

        memory.release(80 * KIB);
        assertThat(waiting.get()).isTrue();
        assertThat(memory.reserved()).isEqualTo(40 * KIB);
        assertThat(memory.mostReserved()).isEqualTo(80 * KIB);
    }

    @Test
    void largeFramesGetTheirBytesInTheOrderTheyAskedEvenWhenALaterOneWouldFit() throws Exception {
        RequestMemory memory = new RequestMemory(100 * KIB);
        assertThat(memory.reserve(70 * KIB, () -> true)).isTrue();
        CompletableFuture<Boolean> first = reserveElsewhere(memory, 60 * KIB, new AtomicBoolean(true));
        await().atMost(WITHIN).until(() -> memory.waitingFrames() == 1);

        CompletableFuture<Boolean> second = reserveElsewhere(memory, 20 * KIB, new AtomicBoolean(true));
        await().atMost(WITHIN).until(() -> memory.waitingFrames() == 2);
        assertThat(second).as("20 KiB would fit, but a frame asked before it").isNotDone();

        memory.release(70 * KIB);
        assertThat(first.get()).isTrue();
        assertThat(second.get()).isTrue();
        assertThat(memory.reserved()).isEqualTo(80 * KIB);
    }

    @Test
    void aWaitingFrameGivesUpWithNothingReservedWhenItsConnectionCloses() throws Exception {
        RequestMemory memory = new RequestMemory(100 * KIB);
        assertThat(memory.reserve(90 * KIB, () -> true)).isTrue();
        AtomicBoolean open = new AtomicBoolean(true);
        CompletableFuture<Boolean> waiting = reserveElsewhere(memory, 50 * KIB, open);
        await().atMost(WITHIN).until(() -> memory.waitingFrames() == 1);

        open.set(false);

        assertThat(waiting.get()).isFalse();
        assertThat(memory.waitingFrames()).isZero();
        assertThat(memory.reserved()).isEqualTo(90 * KIB);
    }
}
