package io.orderflow.consumer;

import io.orderflow.contracts.EventCodec;
import io.orderflow.contracts.Topics;
import io.orderflow.contracts.order.OrderCancelled;
import io.orderflow.contracts.order.OrderCreated;
import io.orderflow.contracts.order.OrderEvent;
import io.orderflow.contracts.order.OrderLine;
import io.orderflow.contracts.order.OrderPaid;
import io.orderflow.contracts.order.OrderShipped;
import java.math.BigDecimal;
import java.time.Clock;
import java.util.List;
import java.util.UUID;
import java.util.stream.IntStream;
import org.apache.kafka.clients.consumer.ConsumerRecord;

/**
 * Made-up records of {@code orders} for a warm-up's rehearsal ({@link EventBatchProcessor#rehearse}): two orders of
 * customer {@code warm-up}, one created, paid and shipped, one created and cancelled, each event with a new id, so that
 * every handler meets each event type it handles. They are never published; a rehearsal rolls back what they did.
 * Thread-safe.
 */
public final class RehearsalEvents {

    /** The customer, and the SKU prefix, of every made-up order. */
    public static final String CUSTOMER = "warm-up";

    private final EventCodec codec = new EventCodec();
    private final Clock clock;

    public RehearsalEvents(Clock clock) {
        this.clock = clock;
    }

    /** One round's records, in order, as if read from partition 0 of {@code orders}. */
    public List<ConsumerRecord<String, byte[]>> round(int round) {
        String shipped = CUSTOMER + "-" + UUID.randomUUID();
        String cancelled = CUSTOMER + "-" + UUID.randomUUID();
        BigDecimal price = new BigDecimal("9.99");
        int quantity = 1 + round % 3;
        BigDecimal total = price.multiply(BigDecimal.valueOf(quantity));
        List<OrderLine> lines = List.of(new OrderLine(CUSTOMER.toUpperCase() + "-1", quantity, price));
        List<OrderEvent> events = List.of(
                new OrderCreated(shipped, CUSTOMER, "EUR", lines, total, "web"),
                new OrderPaid(shipped, total, "EUR", CUSTOMER),
                new OrderShipped(shipped, CUSTOMER, CUSTOMER),
                new OrderCreated(cancelled, CUSTOMER, "EUR", lines, total, "web"),
                new OrderCancelled(cancelled, CUSTOMER));
        return IntStream.range(0, events.size())
                .mapToObj(i -> record(i, events.get(i)))
                .toList();
    }

    private ConsumerRecord<String, byte[]> record(long offset, OrderEvent event) {
        byte[] value = codec.encode(codec.wrap(event, UUID.randomUUID(), clock.instant(), CUSTOMER, null));
        return new ConsumerRecord<>(Topics.ORDERS, 0, offset, event.orderId(), value);
    }
}
