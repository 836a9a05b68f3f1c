package io.orderflow.notification;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.time.OffsetDateTime;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.function.BinaryOperator;
import javax.sql.DataSource;

/**
 * The pending mails as work that several senders share: a sender {@link #claim}s the mails it will send, which sets
 * {@code claimed_by} (its name) and {@code lease_until} on their rows (migration V3) in one short transaction, sends
 * them, and {@link #markSent marks} the accepted ones {@code SENT} or {@link #release releases} the refused ones. While
 * a lease runs no other sender takes the mail; once it has passed (its sender died, or lost the database, while
 * sending) the mail is claimable again, and sent again by whoever claims it, with the same Message-ID. So a mail is
 * sent twice only if its sender stopped between the SMTP server's acceptance and the mark: at most the mails it had
 * claimed. Leases are read and written on the database's clock, the one clock all instances share; a test moves a
 * lease into the past instead of waiting for it.
 *
 * <p><b>Which mails are due, across instances.</b> Of each order with pending mails whose customer is known (its
 * {@code OrderCreated} wrote {@code order_customers}), oldest pending mail first, only the first pending mail in
 * lifecycle order ({@link LifecycleStep}, then the order the mails were written in) is due, and not at all while that
 * mail is claimed: a claimed mail stays {@code PENDING} until it is marked, so the next mail of its order becomes due
 * only once the SMTP server accepted the one before, whichever instance sent it. The claim itself locks the due rows
 * with {@code FOR UPDATE SKIP LOCKED} and checks again that each is pending and unclaimed, so of two senders that chose
 * the same mail at the same moment one claims it and the other passes over it.
 *
 * <p>Three statements per claim, whose plans do not depend on statistics (a young table has none): the pending index in
 * age order, with a primary-key probe of each row's customer, for the oldest orders that can be mailed; those orders'
 * mails through the order index; the claim through the primary key. The first two took under 3 ms at 170,000 pending
 * mails, with and without statistics (2026-12-04). Single statements that also compared each pending mail with the
 * earlier ones of its order were planned, without statistics, as a read of every pending mail per mail: 0.6 s (NOT
 * EXISTS) and 22 minutes (a correlated LIMIT 1) for one group.
 *
 * <p>Thread-safe: every method takes a connection of its own; one sender claims from one thread.
 */
final class MailClaims {

    /** A claimed mail: what the sender hands to the SMTP server. */
    record ClaimedMail(UUID eventId, String recipient, String subject, String body) {

        /** {@code <eventId@orderflow>}: the same for every sending of the mail, so a resend is recognisably one. */
        String messageId() {
            return "<" + eventId + "@orderflow>";
        }
    }

    private static final String OLDEST_CLAIMABLE_ORDERS = """
            SELECT n.order_id FROM notifications n
            WHERE n.status = 'PENDING' AND (n.lease_until IS NULL OR n.lease_until <= now())
              AND EXISTS (SELECT 1 FROM order_customers c WHERE c.order_id = n.order_id)
            ORDER BY n.created_at
            LIMIT ?
            """;
    // Every mail of the orders, sent ones too: filtering on status here would invite the planner to combine the order
    // index with the pending index, which it then reads whole for each order. An order has a few mails at most.
    private static final String MAILS_OF_ORDERS = """
            SELECT n.order_id, n.event_id, n.status, n.lifecycle_step, n.created_at, n.subject, n.body,
                   c.customer_id || '@' || ?, coalesce(n.lease_until > now(), false)
            FROM unnest(?::text[]) AS k (order_id)
            JOIN notifications n ON n.order_id = k.order_id
            JOIN order_customers c ON c.order_id = k.order_id
            """;
    // The lock comes with a second look at each row: a row another sender claimed or marked since the read above is
    // re-read once its lock is free and passed over. "status <> 'SENT'" is "status = 'PENDING'" (the column's CHECK
    // allows no third value) in a form that the pending index's predicate does not match: planned without statistics,
    // "= 'PENDING'" combined the primary key with the whole pending index (a bitmap of every pending row, 2.3 ms at
    // 6,000
    // and growing with the backlog), where the primary key alone reads the 64 candidates.
    private static final String CLAIM = """
            UPDATE notifications n SET claimed_by = ?, lease_until = now() + ? * interval '1 millisecond'
            WHERE n.event_id IN (
                SELECT event_id FROM notifications
                WHERE event_id = ANY (?::uuid[])
                  AND status <> 'SENT' AND (lease_until IS NULL OR lease_until <= now())
                ORDER BY created_at
                LIMIT ?
                FOR UPDATE SKIP LOCKED)
            RETURNING n.event_id
            """;
    // Only while the mail is still ours: if our lease passed and another sender claimed the mail, that sender sends and
    // marks it (again), and our mark would misname who sent it. A row still claimed by us is pending: nothing else
    // marks it.
    private static final String MARK_SENT = """
            UPDATE notifications n SET status = 'SENT', sent_at = clock_timestamp(), recipient = s.recipient,
                   attempts = attempts + 1, last_error = NULL, lease_until = NULL
            FROM unnest(?::uuid[], ?::text[]) AS s (event_id, recipient)
            WHERE n.event_id = s.event_id AND n.claimed_by = ?
            """;
    private static final String RELEASE = """
            UPDATE notifications n SET attempts = attempts + 1, last_error = f.error, claimed_by = NULL,
                   lease_until = NULL
            FROM unnest(?::uuid[], ?::text[]) AS f (event_id, error)
            WHERE n.event_id = f.event_id AND n.claimed_by = ?
            """;
    private static final Comparator<MailOfOrder> LIFECYCLE_ORDER = Comparator.comparingInt(MailOfOrder::step)
            .thenComparing(MailOfOrder::createdAt)
            .thenComparing(MailOfOrder::eventId);

    /** A pending mail of an order that has some, as {@link #claim} reads it. */
    private record MailOfOrder(
            String orderId, UUID eventId, short step, OffsetDateTime createdAt, ClaimedMail mail, boolean leased) {}

    private final DataSource dataSource;
    private final String sender;
    private final Duration lease;
    private final String recipientDomain;

    /**
     * Claims for {@code sender}, the name written into {@code claimed_by}: unique among the instances sharing the
     * database, and the same for the sender's whole life.
     */
    MailClaims(DataSource dataSource, String sender, Duration lease, String recipientDomain) {
        this.dataSource = dataSource;
        this.sender = sender;
        this.lease = lease;
        this.recipientDomain = recipientDomain;
    }

    String sender() {
        return sender;
    }

    Duration lease() {
        return lease;
    }

    /** Claims up to {@code max} due mails of different orders, oldest first, leased for {@link #lease()}. */
    List<ClaimedMail> claim(int max) throws SQLException {
        try (Connection connection = dataSource.getConnection()) {
            Set<String> orders = oldestClaimableOrders(connection, 4 * max);
            if (orders.isEmpty()) {
                return List.of();
            }
            Map<UUID, ClaimedMail> due = due(connection, orders);
            if (due.isEmpty()) {
                return List.of();
            }
            List<ClaimedMail> claimed = new ArrayList<>();
            try (PreparedStatement update = connection.prepareStatement(CLAIM)) {
                update.setString(1, sender);
                update.setLong(2, lease.toMillis());
                update.setArray(3, connection.createArrayOf("uuid", due.keySet().toArray()));
                update.setInt(4, max);
                try (ResultSet rows = update.executeQuery()) {
                    while (rows.next()) {
                        claimed.add(due.get(rows.getObject(1, UUID.class)));
                    }
                }
            }
            return claimed;
        }
    }

    private static Set<String> oldestClaimableOrders(Connection connection, int limit) throws SQLException {
        Set<String> orders = new LinkedHashSet<>(); // oldest pending mail first
        try (PreparedStatement select = connection.prepareStatement(OLDEST_CLAIMABLE_ORDERS)) {
            select.setInt(1, limit);
            try (ResultSet rows = select.executeQuery()) {
                while (rows.next()) {
                    orders.add(rows.getString(1));
                }
            }
        }
        return orders;
    }

    /** Of each order, its first pending mail in lifecycle order, unless that mail is claimed. */
    private Map<UUID, ClaimedMail> due(Connection connection, Set<String> orders) throws SQLException {
        Map<String, MailOfOrder> first = new HashMap<>();
        try (PreparedStatement select = connection.prepareStatement(MAILS_OF_ORDERS)) {
            select.setString(1, recipientDomain);
            select.setArray(2, connection.createArrayOf("text", orders.toArray()));
            try (ResultSet rows = select.executeQuery()) {
                while (rows.next()) {
                    if (!rows.getString(3).equals("PENDING")) {
                        continue;
                    }
                    UUID eventId = rows.getObject(2, UUID.class);
                    MailOfOrder mail = new MailOfOrder(
                            rows.getString(1),
                            eventId,
                            rows.getShort(4),
                            rows.getObject(5, OffsetDateTime.class),
                            new ClaimedMail(eventId, rows.getString(8), rows.getString(6), rows.getString(7)),
                            rows.getBoolean(9));
                    first.merge(mail.orderId(), mail, BinaryOperator.minBy(LIFECYCLE_ORDER));
                }
            }
        }
        Map<UUID, ClaimedMail> due = new HashMap<>();
        for (MailOfOrder mail : first.values()) {
            if (!mail.leased()) {
                due.put(mail.eventId(), mail.mail());
            }
        }
        return due;
    }

    /**
     * Marks {@code accepted} {@code SENT}, with the address each went to, where this sender still holds the claim;
     * returns how many it marked (fewer: another sender claimed the rest after their lease passed, and sends them again).
     */
    int markSent(List<ClaimedMail> accepted) throws SQLException {
        if (accepted.isEmpty()) {
            return 0;
        }
        // One lock order for every sender, so that two marks of the same rows (a lease passed) cannot deadlock.
        List<ClaimedMail> sorted = accepted.stream()
                .sorted(Comparator.comparing(ClaimedMail::eventId))
                .toList();
        try (Connection connection = dataSource.getConnection();
                PreparedStatement update = connection.prepareStatement(MARK_SENT)) {
            update.setArray(
                    1,
                    connection.createArrayOf(
                            "uuid", sorted.stream().map(ClaimedMail::eventId).toArray()));
            update.setArray(
                    2,
                    connection.createArrayOf(
                            "text", sorted.stream().map(ClaimedMail::recipient).toArray()));
            update.setString(3, sender);
            return update.executeUpdate();
        }
    }

    /** Gives {@code refused} back, claimable at once, recording an attempt and its error (in the same order). */
    void release(List<ClaimedMail> refused, List<String> errors) throws SQLException {
        if (refused.isEmpty()) {
            return;
        }
        try (Connection connection = dataSource.getConnection();
                PreparedStatement update = connection.prepareStatement(RELEASE)) {
            update.setArray(
                    1,
                    connection.createArrayOf(
                            "uuid", refused.stream().map(ClaimedMail::eventId).toArray()));
            update.setArray(2, connection.createArrayOf("text", errors.toArray()));
            update.setString(3, sender);
            update.executeUpdate();
        }
    }
}
