package io.orderflow.ops.bench.orders;

import io.orderflow.outbox.OutboxBacklog;
import io.orderflow.outbox.OutboxTable;
import io.orderflow.postgres.PostgresDatabase;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;

/**
 * Once a second, how many outbox rows wait for the relay and how old the oldest of them is, read from the order
 * service's database itself rather than from the relay's metrics, so that a relay that stopped looking cannot report
 * a small backlog. The query is the relay's own work queue (the partial index {@code outbox_pending}), so it costs
 * PostgreSQL next to nothing.
 *
 * <p>The sampler thread writes, other threads read {@link #samples()}: thread-safe.
 */
final class BacklogSampler implements AutoCloseable {
    private final Connection connection;
    private final List<Sample> samples = new ArrayList<>(); // guarded by this
    private final Thread thread;
    private volatile boolean stopping;
    private volatile SQLException failure;

    /**
     * One reading.
     *
     * @param atMillis wall time of the reading
     * @param rows committed outbox rows neither published nor quarantined
     * @param oldestPendingMillis age of the oldest of them (0 if none)
     */
    record Sample(long atMillis, long rows, double oldestPendingMillis) {}

    private BacklogSampler(Connection connection) {
        this.connection = connection;
        this.thread = Thread.ofPlatform().name("backlog-sampler").daemon().unstarted(this::sampleLoop);
    }

    static BacklogSampler start(PostgresDatabase database) throws SQLException {
        BacklogSampler sampler = new BacklogSampler(database.connect());
        sampler.thread.start();
        return sampler;
    }

    private void sampleLoop() {
        long next = System.currentTimeMillis();
        try {
            OutboxTable outbox = new OutboxTable(connection);
            while (!stopping) {
                OutboxBacklog backlog = outbox.backlog();
                Sample sample = new Sample(
                        System.currentTimeMillis(),
                        backlog.pendingRows(),
                        backlog.oldestPendingAge().toNanos() / 1e6);
                synchronized (this) {
                    samples.add(sample);
                }
                next += 1000;
                long sleep = next - System.currentTimeMillis();
                if (sleep > 0) {
                    Thread.sleep(sleep);
                }
            }
        } catch (SQLException e) {
            failure = e;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /** The readings taken from {@code fromMillis} (inclusive) to {@code toMillis} (exclusive), wall time. */
    synchronized List<Sample> samples(long fromMillis, long toMillis) {
        return samples.stream()
                .filter(s -> s.atMillis() >= fromMillis && s.atMillis() < toMillis)
                .toList();
    }

    /** Stops sampling, then takes one last reading, which it returns. */
    Sample stop() throws InterruptedException, SQLException {
        stopping = true;
        thread.interrupt();
        thread.join(5_000);
        SQLException e = failure;
        if (e != null) {
            throw new SQLException("Sampling the outbox backlog failed: " + e.getMessage(), e);
        }
        return read(new OutboxTable(connection));
    }

    private static Sample read(OutboxTable outbox) throws SQLException {
        OutboxBacklog backlog = outbox.backlog();
        return new Sample(
                System.currentTimeMillis(),
                backlog.pendingRows(),
                backlog.oldestPendingAge().toNanos() / 1e6);
    }

    @Override
    public void close() throws InterruptedException, SQLException {
        stopping = true;
        thread.interrupt();
        thread.join(5_000);
        connection.close();
    }
}
