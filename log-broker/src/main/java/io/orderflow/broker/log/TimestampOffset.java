package io.orderflow.broker.log;

/** A record's offset and its timestamp, as ListOffsets returns them. */
public record TimestampOffset(long timestamp, long offset) {}
