package io.orderflow.orders.persistence;

import io.quarkus.hibernate.orm.panache.PanacheEntityBase;
import jakarta.persistence.Column;
import jakarta.persistence.Entity;
import jakarta.persistence.Id;
import jakarta.persistence.Table;
import java.time.Instant;
import java.util.UUID;

/**
 * A row of {@code idempotency_keys}: the order a {@code POST /orders} created under a client's key, and the digest
 * of the request it came with (see {@code RequestFingerprint}). Written in the transaction that creates the order,
 * after the order row (the key references it). Rows expire after {@code order-service.idempotency.retention} (see
 * {@code IdempotencyKeys}).
 */
@Entity
@Table(name = "idempotency_keys")
public class IdempotencyKeyRow extends PanacheEntityBase {

    @Id
    @Column(name = "idempotency_key")
    public String key;

    @Column(name = "request_hash", nullable = false)
    public String requestHash;

    @Column(name = "order_id", nullable = false)
    public UUID orderId;

    @Column(name = "created_at", nullable = false)
    public Instant createdAt;

    protected IdempotencyKeyRow() {}

    public IdempotencyKeyRow(String key, String requestHash, UUID orderId, Instant createdAt) {
        this.key = key;
        this.requestHash = requestHash;
        this.orderId = orderId;
        this.createdAt = createdAt;
    }
}
