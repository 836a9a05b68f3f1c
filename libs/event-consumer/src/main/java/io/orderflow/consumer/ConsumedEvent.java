package io.orderflow.consumer;

import io.orderflow.contracts.EventEnvelope;
import io.orderflow.contracts.order.OrderEvent;
import org.apache.kafka.clients.consumer.ConsumerRecord;

/** A record whose envelope and payload this service could read, with the record it came in. */
public record ConsumedEvent(ConsumerRecord<String, byte[]> record, EventEnvelope envelope, OrderEvent event) {}
