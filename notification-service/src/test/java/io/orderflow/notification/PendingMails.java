package io.orderflow.notification;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import javax.sql.DataSource;

/**
 * Mails written straight to notification-service's tables, as its consumer would have written them: {@code count}
 * orders {@code batch-1} to {@code batch-count}, each with its customer ({@code batch-n}, so its mail goes to {@code
 * batch-n@customers.orderflow.test}) and one pending order-placed mail, in one transaction, so that the sender's next
 * claim finds them all due at once.
 */
final class PendingMails {
    private PendingMails() {}

    static void write(DataSource dataSource, String batch, int count) throws SQLException {
        try (Connection tx = dataSource.getConnection();
                PreparedStatement customers = tx.prepareStatement("INSERT INTO order_customers (order_id, customer_id)"
                        + " SELECT ? || '-' || n, ? || '-' || n FROM generate_series(1, ?) n");
                PreparedStatement mails = tx.prepareStatement("INSERT INTO notifications (event_id, order_id,"
                        + " event_type, lifecycle_step, subject, body) SELECT gen_random_uuid(), ? || '-' || n,"
                        + " 'OrderCreated', 1, 'Your order', 'Thank you.' FROM generate_series(1, ?) n")) {
            tx.setAutoCommit(false);
            customers.setString(1, batch);
            customers.setString(2, batch);
            customers.setInt(3, count);
            customers.executeUpdate();
            mails.setString(1, batch);
            mails.setInt(2, count);
            mails.executeUpdate();
            tx.commit();
        }
    }
}
