package io.orderflow.ops.bench.orders;

import io.orderflow.postgres.PostgresDatabase;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
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
    private static final String QUERY = "SELECT count(*), coalesce(extract(epoch FROM clock_timestamp()"
            + " - min(created_at)) * 1000, 0) FROM outbox WHERE published_at IS NULL AND quarantined_at IS NULL";

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
        try (Statement statement = connection.createStatement()) {
            while (!stopping) {
                try (ResultSet row = statement.executeQuery(QUERY)) {
                    row.next();
                    Sample sample = new Sample(System.currentTimeMillis(), row.getLong(1), row.getDouble(2));
                    synchronized (this) {
                        samples.add(sample);
                    }
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
        try (Statement statement = connection.createStatement();
                ResultSet row = statement.executeQuery(QUERY)) {
            row.next();
            return new Sample(System.currentTimeMillis(), row.getLong(1), row.getDouble(2));
        }
    }

    @Override
    public void close() throws InterruptedException, SQLException {
        stopping = true;
        thread.interrupt();
        thread.join(5_000);
        connection.close();
    }
}
