package io.orderflow.orders.service;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.orderflow.orders.domain.NewOrder;
import io.orderflow.orders.domain.OrderItem;
import java.math.BigDecimal;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;

/**
 * The {@code request_hash} of an idempotency key: SHA-256, in lower-case hex, of a canonical form of the order
 * request, so that a retry is recognised as the same request however its JSON was spelled.
 *
 * <p>The canonical form is compact JSON with a fixed field order: {@code
 * {"customerId":..,"currency":..,"channel":..|null,"items":[{"sku":..,"quantity":..,"unitPrice":..},..]}}. It is taken
 * from the validated request, so key order, whitespace, an absent versus a null {@code channel}, and an amount sent as
 * a number or as a string ({@code 9.9}, {@code "9.90"}) make no difference: amounts are compared by value, written
 * with trailing zeros stripped. Item order does matter (it is the order's line order). Unknown fields cannot matter:
 * the API refuses them.
 *
 * <p>Changing this form changes the digests of keys already stored, whose retries would then be refused with 422; do
 * it only together with a migration of {@code idempotency_keys}. Thread-safe.
 */
public final class RequestFingerprint {

    private static final ObjectMapper JSON = new ObjectMapper();

    private RequestFingerprint() {}

    public static String of(NewOrder order) {
        return sha256(canonicalForm(order));
    }

    /** The canonical text that is hashed; public for tests and for debugging a 422. */
    public static String canonicalForm(NewOrder order) {
        ObjectNode root = JSON.createObjectNode();
        root.put("customerId", order.customerId());
        root.put("currency", order.currency());
        root.put("channel", order.channel());
        ArrayNode items = root.putArray("items");
        for (OrderItem item : order.items()) {
            items.addObject()
                    .put("sku", item.sku())
                    .put("quantity", item.quantity())
                    .put("unitPrice", canonicalAmount(item.unitPrice()));
        }
        try {
            return JSON.writeValueAsString(root);
        } catch (JsonProcessingException e) {
            throw new IllegalStateException("cannot write the canonical form of an order request", e);
        }
    }

    private static String canonicalAmount(BigDecimal amount) {
        return amount.signum() == 0 ? "0" : amount.stripTrailingZeros().toPlainString();
    }

    private static String sha256(String text) {
        try {
            MessageDigest digest = MessageDigest.getInstance("SHA-256");
            return HexFormat.of().formatHex(digest.digest(text.getBytes(StandardCharsets.UTF_8)));
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("every Java platform has SHA-256", e);
        }
    }
}
