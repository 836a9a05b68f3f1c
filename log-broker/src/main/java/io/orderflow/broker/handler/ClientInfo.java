package io.orderflow.broker.handler;

/** Who sent a request: for logs, metrics and group membership ({@code client.id}, host). */
public record ClientInfo(String connectionId, String clientId, String host) {}
