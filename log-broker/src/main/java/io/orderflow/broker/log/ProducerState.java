package io.orderflow.broker.log;

/**
 * What a partition knows of one producer, as DescribeProducers reports it ({@code kafka-transactions.sh
 * describe-producers}, {@code find-hanging}): its epoch, the last sequence and timestamp it wrote here, and the first
 * offset of its open transaction here (-1 when none is open).
 */
public record ProducerState(
        long producerId, short epoch, int lastSequence, long lastTimestamp, long currentTxnStartOffset) {}
