package io.orderflow.notification;

import static org.assertj.core.api.Assertions.assertThat;

import io.agroal.api.AgroalDataSource;
import io.agroal.api.configuration.supplier.AgroalDataSourceConfigurationSupplier;
import io.agroal.api.security.NamePrincipal;
import io.agroal.api.security.SimplePassword;
import io.orderflow.notification.MailClaims.ClaimedMail;
import io.orderflow.postgres.PostgresDatabase;
import io.orderflow.property.Properties;
import io.orderflow.testing.CleanSchema;
import io.orderflow.testing.PostgresTest;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Senders of several instances sharing one database, without SMTP: each mail is claimed by one sender at a time, an
 * order's next mail only once its previous one is marked sent whichever sender holds it, a lease that has passed hands
 * the mail to another sender and takes the mark from the first. On the service's schema (its migrations), on a
 * database of its own, so that the service's own sender in the Quarkus tests never meets these mails.
 */
@PostgresTest(service = "notification-claims")
class MailClaimsTest {

    private static final Duration LEASE = Duration.ofMinutes(2);
    private static final String DOMAIN = "customers.orderflow.test";

    private AgroalDataSource dataSource;

    /** The service's schema, and a pool of connections to it as the service has (a new connection costs ~10 ms). */
    @BeforeEach
    void setUp(PostgresDatabase database) throws SQLException {
        CleanSchema.migrate(database, "classpath:db/migration", "classpath:db/consumer");
        dataSource = AgroalDataSource.from(new AgroalDataSourceConfigurationSupplier()
                .connectionPoolConfiguration(pool -> pool.maxSize(8)
                        .connectionFactoryConfiguration(connection -> connection
                                .jdbcUrl(database.jdbcUrl())
                                .principal(new NamePrincipal(database.user()))
                                .credential(new SimplePassword(database.password())))));
    }

    @AfterEach
    void tearDown() {
        dataSource.close();
    }

    private MailClaims sender(String name) {
        return new MailClaims(dataSource, name, LEASE, DOMAIN);
    }

    /** A pending mail of {@code order} at lifecycle step {@code step}; returns its event id. */
    private UUID mail(String order, LifecycleStep step) throws SQLException {
        UUID eventId = UUID.randomUUID();
        try (Connection connection = dataSource.getConnection();
                PreparedStatement insert = connection.prepareStatement(
                        "INSERT INTO notifications (event_id, order_id, event_type, lifecycle_step, subject, body)"
                                + " VALUES (?, ?, ?, ?, ?, 'body')")) {
            insert.setObject(1, eventId);
            insert.setString(2, order);
            insert.setString(3, step.eventType());
            insert.setShort(4, step.number());
            insert.setString(5, step.eventType() + " " + order);
            insert.executeUpdate();
        }
        return eventId;
    }

    private void customer(String order) throws SQLException {
        try (Connection connection = dataSource.getConnection();
                PreparedStatement insert = connection.prepareStatement(
                        "INSERT INTO order_customers (order_id, customer_id) VALUES (?, ?)")) {
            insert.setString(1, order);
            insert.setString(2, "customer-" + order);
            insert.executeUpdate();
        }
    }

    /** The row's status and claimed_by. */
    private List<String> row(UUID eventId) throws SQLException {
        try (Connection connection = dataSource.getConnection();
                PreparedStatement select = connection.prepareStatement(
                        "SELECT status, claimed_by FROM notifications WHERE event_id = ?")) {
            select.setObject(1, eventId);
            try (ResultSet row = select.executeQuery()) {
                row.next();
                return List.of(row.getString(1), String.valueOf(row.getString(2)));
            }
        }
    }

    /** The sender that held {@code eventId} died an hour ago: its lease has passed. */
    private void leasePassed(UUID eventId) throws SQLException {
        try (Connection connection = dataSource.getConnection();
                PreparedStatement update = connection.prepareStatement(
                        "UPDATE notifications SET lease_until = now() - interval '1 hour' WHERE event_id = ?")) {
            update.setObject(1, eventId);
            update.executeUpdate();
        }
    }

    private static List<UUID> ids(List<ClaimedMail> mails) {
        return mails.stream().map(ClaimedMail::eventId).toList();
    }

    @Test
    void aClaimedMailIsNoOtherSendersAndIsAddressedToTheOrdersCustomer() throws Exception {
        customer("order-1");
        customer("order-2");
        UUID first = mail("order-1", LifecycleStep.CREATED);
        UUID second = mail("order-2", LifecycleStep.CREATED);

        List<ClaimedMail> a = sender("a").claim(1);
        List<ClaimedMail> b = sender("b").claim(16);

        assertThat(ids(a)).containsExactly(first);
        assertThat(a.getFirst().recipient()).isEqualTo("customer-order-1@" + DOMAIN);
        assertThat(a.getFirst().messageId()).isEqualTo("<" + first + "@orderflow>");
        assertThat(ids(b)).containsExactly(second);
        assertThat(sender("c").claim(16)).isEmpty();
        assertThat(row(first)).containsExactly("PENDING", "a");
    }

    @Test
    void anOrdersNextMailIsDueOnlyOnceItsFirstIsMarkedSentWhicheverSenderHoldsIt() throws Exception {
        UUID cancellation = mail("order-1", LifecycleStep.CANCELLED); // arrived before its order
        assertThat(sender("a").claim(16)).as("no customer yet").isEmpty();
        customer("order-1");
        UUID confirmation = mail("order-1", LifecycleStep.CREATED);
        MailClaims a = sender("a");
        MailClaims b = sender("b");

        List<ClaimedMail> claimedByA = a.claim(16);
        assertThat(ids(claimedByA)).containsExactly(confirmation);
        assertThat(b.claim(16)).as("the confirmation is in flight at a").isEmpty();

        assertThat(a.markSent(claimedByA)).isEqualTo(1);
        assertThat(ids(b.claim(16))).containsExactly(cancellation);
        assertThat(row(confirmation)).containsExactly("SENT", "a");
    }

    @Test
    void aMailWhoseLeasePassedGoesToAnotherSenderAndTheFirstCannotMarkIt() throws Exception {
        customer("order-1");
        UUID confirmation = mail("order-1", LifecycleStep.CREATED);
        MailClaims dead = sender("dead");
        MailClaims alive = sender("alive");
        List<ClaimedMail> claimedByDead = dead.claim(16);
        assertThat(alive.claim(16)).as("the lease still runs").isEmpty();

        leasePassed(confirmation);
        List<ClaimedMail> claimedByAlive = alive.claim(16);

        assertThat(ids(claimedByAlive)).containsExactly(confirmation);
        assertThat(dead.markSent(claimedByDead)).as("no longer its claim").isZero();
        assertThat(row(confirmation)).containsExactly("PENDING", "alive");
        assertThat(alive.markSent(claimedByAlive)).isEqualTo(1);
        assertThat(row(confirmation)).containsExactly("SENT", "alive");
    }

    @Test
    void aMarkAfterTheLeasePassedStillCountsWhileNoOtherSenderClaimedTheMail() throws Exception {
        customer("order-1");
        UUID confirmation = mail("order-1", LifecycleStep.CREATED);
        MailClaims slow = sender("slow");
        List<ClaimedMail> claimed = slow.claim(16);

        leasePassed(confirmation);

        assertThat(slow.markSent(claimed)).isEqualTo(1);
        assertThat(sender("other").claim(16)).isEmpty();
        assertThat(row(confirmation)).containsExactly("SENT", "slow");
    }

    @Test
    void aReleasedMailIsClaimableAtOnceWithItsAttemptRecorded() throws Exception {
        customer("order-1");
        UUID confirmation = mail("order-1", LifecycleStep.CREATED);
        MailClaims a = sender("a");

        a.release(a.claim(16), List.of("421 try again later"));

        assertThat(ids(sender("b").claim(16))).containsExactly(confirmation);
        try (Connection connection = dataSource.getConnection();
                PreparedStatement select = connection.prepareStatement(
                        "SELECT attempts, last_error FROM notifications WHERE event_id = ?")) {
            select.setObject(1, confirmation);
            try (ResultSet row = select.executeQuery()) {
                row.next();
                assertThat(row.getInt(1)).isEqualTo(1);
                assertThat(row.getString(2)).isEqualTo("421 try again later");
            }
        }
    }

    /**
     * Four senders on four threads claim, "send" and mark until nothing is due, over 200 orders of one to three mails
     * written out of lifecycle order: every mail is claimed exactly once, and no order's mail is claimed before the
     * mark of its previous one began. The order of marks and claims is read from one counter: a mark takes its number
     * before its transaction, a claim after its own, so a claim that had to wait for the mark has the higher number.
     * Three tries, each a workload of its own seed (the threads' interleaving is the scheduler's).
     */
    @Test
    void concurrentSendersClaimEveryMailOnceAndEachOrderInLifecycleOrder() {
        Properties.forAll(3, gen -> {
            Map<UUID, String> orderOf = new HashMap<>();
            Map<UUID, Integer> stepOf = new HashMap<>();
            for (int n = 0; n < 200; n++) {
                String order = "order-" + gen.seed() + "-" + n;
                List<LifecycleStep> steps = new ArrayList<>(List.of(LifecycleStep.CREATED));
                steps.add(gen.oneOf(LifecycleStep.SHIPPED, LifecycleStep.CANCELLED, LifecycleStep.REJECTED));
                if (gen.bool()) {
                    steps.removeLast(); // the confirmation alone
                }
                for (int i = steps.size() - 1; i > 0; i--) {
                    steps.set(i, steps.set(gen.ints(0, i), steps.get(i)));
                }
                for (LifecycleStep step : steps) {
                    UUID eventId = mail(order, step);
                    orderOf.put(eventId, order);
                    stepOf.put(eventId, (int) step.number());
                }
                customer(order);
            }

            AtomicLong clock = new AtomicLong();
            Map<UUID, Long> claimedAt = new ConcurrentHashMap<>();
            Map<UUID, Long> markStartedAt = new ConcurrentHashMap<>();
            Map<UUID, Integer> claims = new ConcurrentHashMap<>();
            ExecutorService threads = Executors.newFixedThreadPool(4);
            try {
                List<Future<?>> senders = new ArrayList<>();
                for (int s = 0; s < 4; s++) {
                    MailClaims sender = sender("sender-" + s);
                    senders.add(threads.submit(() -> {
                        // Nothing due three times running ends a sender; the last one ends only when nothing is due
                        // and nothing is in flight anywhere, that is when every mail is sent.
                        for (int idle = 0; idle < 3; ) {
                            List<ClaimedMail> claimed = sender.claim(8);
                            long claimTick = clock.incrementAndGet();
                            if (claimed.isEmpty()) {
                                idle++;
                                continue;
                            }
                            idle = 0;
                            for (ClaimedMail mail : claimed) {
                                claimedAt.put(mail.eventId(), claimTick);
                                claims.merge(mail.eventId(), 1, Integer::sum);
                            }
                            long markTick = clock.incrementAndGet();
                            claimed.forEach(mail -> markStartedAt.put(mail.eventId(), markTick));
                            assertThat(sender.markSent(claimed)).isEqualTo(claimed.size());
                        }
                        return null;
                    }));
                }
                for (Future<?> sender : senders) {
                    sender.get();
                }
            } finally {
                threads.shutdownNow();
            }

            assertThat(claims).hasSize(orderOf.size());
            assertThat(claims.values()).containsOnly(1);
            for (UUID later : orderOf.keySet()) {
                for (UUID earlier : orderOf.keySet()) {
                    if (orderOf.get(earlier).equals(orderOf.get(later)) && stepOf.get(earlier) < stepOf.get(later)) {
                        assertThat(claimedAt.get(later))
                                .as(
                                        "%s: step %d claimed before the mark of step %d began",
                                        orderOf.get(later), stepOf.get(later), stepOf.get(earlier))
                                .isGreaterThan(markStartedAt.get(earlier));
                    }
                }
            }
        });
    }
}
