package io.orderflow.analytics;

import io.orderflow.consumer.ConsumedEvent;
import io.orderflow.consumer.EventHandler;
import io.orderflow.contracts.order.OrderPaid;
import jakarta.inject.Singleton;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.time.temporal.ChronoUnit;

/**
 * Adds every order event to its per-minute event-time window: one to its type's count in the minute of its
 * {@code occurredAt}, and for {@code OrderPaid} its amount to that minute's revenue in its currency. The sums are
 * order-independent, so the totals are the same whatever order events arrive in and however late; the batch's
 * processed-events claim makes each event count once, so a redelivery or a replay over what was already counted adds
 * nothing, and a replay into empty tables rebuilds the same totals. Thread-safe (stateless).
 */
@Singleton
public final class MinuteWindows implements EventHandler {

    static final String ADD_EVENT = "INSERT INTO minute_events (minute, event_type, events) VALUES (?, ?, 1)"
            + " ON CONFLICT (minute, event_type) DO UPDATE SET events = minute_events.events + 1";
    static final String ADD_REVENUE = "INSERT INTO minute_revenue (minute, currency, amount) VALUES (?, ?, ?)"
            + " ON CONFLICT (minute, currency) DO UPDATE SET amount = minute_revenue.amount + excluded.amount";

    @Override
    public boolean handles(String eventType) {
        return true;
    }

    @Override
    public void apply(Connection tx, ConsumedEvent consumed) throws SQLException {
        OffsetDateTime minute = OffsetDateTime.ofInstant(
                consumed.envelope().occurredAt().truncatedTo(ChronoUnit.MINUTES), ZoneOffset.UTC);
        try (PreparedStatement add = tx.prepareStatement(ADD_EVENT)) {
            add.setObject(1, minute);
            add.setString(2, consumed.envelope().eventType());
            add.executeUpdate();
        }
        if (consumed.event() instanceof OrderPaid paid) {
            try (PreparedStatement add = tx.prepareStatement(ADD_REVENUE)) {
                add.setObject(1, minute);
                add.setString(2, paid.currency());
                add.setBigDecimal(3, paid.amount());
                add.executeUpdate();
            }
        }
    }
}
