package io.orderflow.orders.persistence;

import io.orderflow.orders.domain.NewOrder;
import io.orderflow.orders.domain.Order;
import io.orderflow.orders.domain.OrderStatus;
import io.orderflow.orders.domain.OrderTransition;
import io.quarkus.hibernate.orm.panache.PanacheEntityBase;
import jakarta.persistence.CollectionTable;
import jakarta.persistence.Column;
import jakarta.persistence.ElementCollection;
import jakarta.persistence.Entity;
import jakarta.persistence.EnumType;
import jakarta.persistence.Enumerated;
import jakarta.persistence.Id;
import jakarta.persistence.JoinColumn;
import jakarta.persistence.OrderColumn;
import jakarta.persistence.Table;
import java.math.BigDecimal;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import org.hibernate.annotations.DynamicUpdate;
import org.hibernate.annotations.JdbcTypeCode;
import org.hibernate.annotations.ListIndexBase;
import org.hibernate.annotations.OptimisticLockType;
import org.hibernate.annotations.OptimisticLocking;
import org.hibernate.type.SqlTypes;

/**
 * A row of {@code orders} (schema: {@code db/migration}, owned by Flyway), with its lines.
 *
 * <p><b>Versions.</b> {@code version} is the aggregate version: 1 at creation, +1 per transition, and the
 * {@code aggregate_version} of the outbox row written with the change. It is kept by {@link #advance} rather than by
 * JPA's {@code @Version}, because Hibernate seeds a {@code @Version} at 0 and treats an assigned id with a non-seed
 * version as a detached entity, while the schema and the relay want 1 at creation.
 *
 * <p><b>No lost update, even without the advisory lock.</b> Versionless optimistic locking ({@code DIRTY}) puts the
 * previous values of the changed columns in the UPDATE's WHERE clause; since every transition changes
 * {@code version} and {@code status}, a transition is written as {@code UPDATE orders SET ... WHERE id = ? AND
 * status = <read> AND version = <read> ...}. If another transaction changed the row after it was read, no row matches
 * and Hibernate throws an {@code OptimisticLockException} that rolls the transaction back. Under the outbox protocol
 * (the order's advisory lock is held while it is read and written) that never happens; this is the second line of
 * defence.
 *
 * <p>Not thread-safe: an instance belongs to one persistence context, i.e. one transaction.
 */
@Entity
@Table(name = "orders")
@DynamicUpdate
@OptimisticLocking(type = OptimisticLockType.DIRTY)
public class OrderRow extends PanacheEntityBase {

    @Id
    public UUID id;

    @Column(name = "customer_id", nullable = false)
    public String customerId;

    @Column(name = "currency", nullable = false, length = 3)
    @JdbcTypeCode(SqlTypes.CHAR)
    public String currency;

    @Column(name = "channel")
    public String channel;

    @Enumerated(EnumType.STRING)
    @Column(name = "status", nullable = false)
    public OrderStatus status;

    @Column(name = "total", nullable = false)
    public BigDecimal total;

    @Column(name = "version", nullable = false)
    public long version;

    @Column(name = "created_at", nullable = false)
    public Instant createdAt;

    @Column(name = "updated_at", nullable = false)
    public Instant updatedAt;

    @Column(name = "payment_reference")
    public String paymentReference;

    @Column(name = "carrier")
    public String carrier;

    @Column(name = "tracking_number")
    public String trackingNumber;

    @Column(name = "cancellation_reason")
    public String cancellationReason;

    /** Inventory's reason, when it could not reserve the order (REJECTED). */
    @Column(name = "rejection_reason")
    public String rejectionReason;

    /** The SKUs inventory found unknown or short, when it rejected the order; null otherwise. */
    @Column(name = "short_skus")
    public String[] shortSkus;

    /** In {@code line_no} order; {@code line_no} is the list position + 1, and (order_id, line_no) the key. */
    @ElementCollection
    @CollectionTable(name = "order_lines", joinColumns = @JoinColumn(name = "order_id"))
    @OrderColumn(name = "line_no")
    @ListIndexBase(1)
    public List<OrderLineRow> lines = new ArrayList<>();

    /** A new CREATED order at version 1; {@link #persist()} it to insert the order and its lines. */
    public static OrderRow create(UUID id, NewOrder order, Instant now) {
        OrderRow row = new OrderRow();
        row.id = id;
        row.customerId = order.customerId();
        row.currency = order.currency();
        row.channel = order.channel();
        row.status = OrderStatus.CREATED;
        row.total = order.total();
        row.version = 1;
        row.createdAt = now;
        row.updatedAt = now;
        order.items().forEach(item -> row.lines.add(new OrderLineRow(item)));
        return row;
    }

    /**
     * Applies {@code transition} (or throws {@link io.orderflow.orders.domain.IllegalTransitionException}) and raises
     * the version by one. The UPDATE is written at the next flush.
     */
    public void advance(OrderTransition transition, Instant now) {
        status = transition.applyTo(id, status);
        version = version + 1;
        updatedAt = now;
    }

    public Order toOrder() {
        return new Order(
                id,
                customerId,
                currency,
                channel,
                status,
                lines.stream().map(OrderLineRow::toItem).toList(),
                total,
                version,
                createdAt,
                updatedAt,
                paymentReference,
                carrier,
                trackingNumber,
                cancellationReason,
                rejectionReason,
                shortSkus == null ? List.of() : List.of(shortSkus));
    }
}
