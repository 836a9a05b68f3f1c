package io.orderflow.consumer.quarkus;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.util.Map;
import java.util.Optional;

/**
 * The check of one admin request's {@code Authorization} header against {@code orderflow.admin.token}, with no HTTP in
 * it: the request is admitted, or refused with the answer {@link AdminTokenFilter} sends.
 *
 * <table>
 *   <caption>Answers</caption>
 *   <tr><th>token configured</th><th>{@code Authorization}</th><th>answer</th></tr>
 *   <tr><td>no (unset or blank)</td><td>anything</td><td>403: admin endpoints are off</td></tr>
 *   <tr><td>yes</td><td>missing, not {@code Bearer}, or another token</td><td>401 with the challenge
 *       {@code Bearer realm="orderflow-admin"}</td></tr>
 *   <tr><td>yes</td><td>{@code Bearer <the token>}</td><td>admitted</td></tr>
 * </table>
 *
 * <p>Refusals are {@code application/problem+json} bodies naming the operation refused and where the token comes from,
 * never the token configured or the one presented. The comparison takes the same time wherever the presented token
 * first differs ({@link MessageDigest#isEqual} runs over the presented bytes, whose length the caller already knows),
 * so timing does not reveal the token a byte at a time. Immutable and thread-safe.
 */
final class AdminToken {

    static final String KEY = "orderflow.admin.token";
    static final String CHALLENGE = "Bearer realm=\"orderflow-admin\"";
    static final String PROBLEM_JSON = "application/problem+json";

    private static final String SCHEME = "bearer ";
    private static final String WHERE_FROM = KEY + " (environment: ORDERFLOW_ADMIN_TOKEN; on the laptop platform, the"
            + " file .orderflow/secrets/admin-token)";

    /** A refused request's answer: its status, the {@code WWW-Authenticate} challenge (for 401 only) and its body. */
    record Refusal(int status, Optional<String> challenge, Map<String, Object> body) {}

    /** The configured token's UTF-8 bytes, or {@code null} when none is set. */
    private final byte[] expected;

    AdminToken(Optional<String> configured) {
        this.expected = configured
                .map(String::strip)
                .filter(token -> !token.isEmpty())
                .map(token -> token.getBytes(StandardCharsets.UTF_8))
                .orElse(null);
    }

    /**
     * Empty when {@code authorization} (the header's value, {@code null} when absent) carries the configured token;
     * otherwise the refusal of {@code operation} (method and path, e.g. {@code PUT /inventory/sku-1}).
     */
    Optional<Refusal> refusal(String operation, String authorization) {
        if (expected == null) {
            return Optional.of(new Refusal(
                    403,
                    Optional.empty(),
                    problem(
                            403,
                            "Admin endpoints are off",
                            operation + " is an admin operation, and admin operations are off until " + KEY
                                    + " is set (environment: ORDERFLOW_ADMIN_TOKEN)")));
        }
        if (authorization == null || authorization.isBlank()) {
            return Optional.of(unauthorized(operation, "the request has no Authorization header"));
        }
        String value = authorization.strip();
        if (!value.regionMatches(true, 0, SCHEME, 0, SCHEME.length())) {
            return Optional.of(unauthorized(operation, "the request's Authorization header is not a Bearer token"));
        }
        byte[] presented = value.substring(SCHEME.length()).strip().getBytes(StandardCharsets.UTF_8);
        if (!MessageDigest.isEqual(presented, expected)) {
            return Optional.of(unauthorized(operation, "the request's bearer token is not that token"));
        }
        return Optional.empty();
    }

    private static Refusal unauthorized(String operation, String why) {
        return new Refusal(
                401,
                Optional.of(CHALLENGE),
                problem(
                        401,
                        "Admin token required",
                        operation + " requires a bearer token (Authorization: Bearer <token>), the token set as "
                                + WHERE_FROM + "; " + why));
    }

    private static Map<String, Object> problem(int status, String title, String detail) {
        return Map.of("type", "about:blank", "title", title, "status", status, "detail", detail);
    }

    @Override
    public String toString() {
        return "AdminToken[" + (expected == null ? "not set" : "set") + "]";
    }
}
