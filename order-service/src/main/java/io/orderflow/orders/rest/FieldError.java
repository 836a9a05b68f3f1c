package io.orderflow.orders.rest;

/**
 * One invalid part of a request, in a 400 problem's {@code errors}: {@code field} is a body path such as
 * {@code items[0].quantity}, a header or path parameter name such as {@code Idempotency-Key} or {@code id}, or
 * {@code body} for the request body as a whole.
 */
public record FieldError(String field, String message) {}
