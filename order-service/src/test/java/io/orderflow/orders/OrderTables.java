package io.orderflow.orders;

import io.orderflow.outbox.OutboxRow;
import io.orderflow.outbox.OutboxTable;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.UUID;
import javax.sql.DataSource;

/**
 * Reads the tables behind the API with plain JDBC, so tests check what was committed rather than what the service
 * says it did. Transaction ids are compared as 32-bit xids: {@code xmin} of a row is the 32-bit id of the transaction
 * that wrote it, {@code outbox.tx_id} the 64-bit {@code xid8} of the same transaction.
 */
public final class OrderTables {

    public record OrderState(String status, long version, long xmin) {}

    private final DataSource dataSource;

    public OrderTables(DataSource dataSource) {
        this.dataSource = dataSource;
    }

    /** The order's outbox rows, by aggregate version, read as the relay reads them. */
    public List<OutboxRow> outbox(UUID orderId) {
        try (Connection connection = dataSource.getConnection()) {
            return new OutboxTable(connection).rowsOf(orderId.toString());
        } catch (SQLException e) {
            throw new IllegalStateException("cannot read the outbox of " + orderId, e);
        }
    }

    /** The 32-bit xid of the transaction that wrote {@code row}, comparable with a row's {@code xmin}. */
    public static long xid(OutboxRow row) {
        return row.txId() % (1L << 32);
    }

    public Optional<OrderState> order(UUID orderId) {
        return query(
                "SELECT status, version, xmin::text FROM orders WHERE id = ?",
                rows -> rows.next()
                        ? Optional.of(
                                new OrderState(rows.getString(1), rows.getLong(2), Long.parseLong(rows.getString(3))))
                        : Optional.empty(),
                orderId);
    }

    /** The xmins of the order's lines, in line order. */
    public List<Long> lineXmins(UUID orderId) {
        return query(
                "SELECT xmin::text FROM order_lines WHERE order_id = ? ORDER BY line_no",
                rows -> {
                    List<Long> xmins = new ArrayList<>();
                    while (rows.next()) {
                        xmins.add(Long.parseLong(rows.getString(1)));
                    }
                    return xmins;
                },
                orderId);
    }

    /** A single number from {@code sql}, e.g. a count. */
    public long number(String sql, Object... parameters) {
        return query(sql, rows -> single(rows).getLong(1), parameters);
    }

    /** A single text value from {@code sql}. */
    public String text(String sql, Object... parameters) {
        return query(sql, rows -> single(rows).getString(1), parameters);
    }

    private static ResultSet single(ResultSet rows) throws SQLException {
        if (!rows.next()) {
            throw new IllegalStateException("the query returned no row");
        }
        return rows;
    }

    public void execute(String sql, Object... parameters) {
        try (Connection connection = dataSource.getConnection();
                PreparedStatement statement = prepare(connection, sql, parameters)) {
            statement.execute();
        } catch (SQLException e) {
            throw new IllegalStateException("cannot run " + sql, e);
        }
    }

    private interface RowsReader<T> {
        T read(ResultSet rows) throws SQLException;
    }

    private <T> T query(String sql, RowsReader<T> reader, Object... parameters) {
        try (Connection connection = dataSource.getConnection();
                PreparedStatement statement = prepare(connection, sql, parameters);
                ResultSet rows = statement.executeQuery()) {
            return reader.read(rows);
        } catch (SQLException e) {
            throw new IllegalStateException("cannot run " + sql, e);
        }
    }

    private static PreparedStatement prepare(Connection connection, String sql, Object... parameters)
            throws SQLException {
        PreparedStatement statement = connection.prepareStatement(sql);
        for (int i = 0; i < parameters.length; i++) {
            statement.setObject(i + 1, parameters[i]);
        }
        return statement;
    }
}
