package io.orderflow.orders.rest;

import java.util.Random;

/**
 * Random JSON-ish request bodies, the same for the same seed: near-valid orders with random values in random fields,
 * character-level mutations of valid bodies (deleted, inserted, duplicated, truncated text), and token noise. Used by
 * the HTTP fuzz test and by the in-process binding property, which both require that no body causes anything but a
 * 400 (or, when a mutation happens to stay valid, a created order).
 */
final class JsonishBodies {

    private static final String[] VALUES = {
        "null",
        "true",
        "false",
        "0",
        "-1",
        "1.5",
        "-0",
        "2147483648",
        "12345678901234567890",
        "1e999999999",
        "1E+3",
        "-1e-999999999",
        "\"\"",
        "\" \"",
        "\"x\"",
        "\"EUR\"",
        "\"eur\"",
        "\"9.95\"",
        "\"1e5\"",
        "\"-0.00\"",
        "[]",
        "{}",
        "[null]",
        "[{}]",
        "[1, 2]",
        "{\"a\": 1}",
        "\"\\u0000\"",
        "\"\\ud800\"",
        "\"tab\\there\"",
        "\"" + "x".repeat(300) + "\"",
        "0.0000000001",
        "999999999.999999999",
        "1000000",
        "1000001",
        "\"\\\"\""
    };
    private static final String[] FIELDS = {"customerId", "currency", "channel", "items", "sku", "quantity", "unitPrice"
    };
    private static final String NOISE = "{}[]\":,\\ 0123456789.eE+-tfnulx\u00e9\u0000";

    private JsonishBodies() {}

    static String generate(Random random) {
        return switch (random.nextInt(5)) {
            case 0, 1 -> structured(random);
            case 2 -> mutate(validBody(random), random);
            case 3 -> mutate(structured(random), random);
            default -> noise(random);
        };
    }

    private static String validBody(Random random) {
        return "{\"customerId\": \"c-" + random.nextInt(100) + "\", \"currency\": \"EUR\", \"items\": [{\"sku\": \"S\","
                + " \"quantity\": " + (1 + random.nextInt(5)) + ", \"unitPrice\": \"" + random.nextInt(100)
                + ".50\"}]}";
    }

    /** An object with order fields, each absent, valid, or a random JSON value; sometimes an extra field. */
    private static String structured(Random random) {
        StringBuilder body = new StringBuilder("{");
        field(body, random, "customerId", "\"customer-1\"");
        field(body, random, "currency", "\"EUR\"");
        field(body, random, "channel", "\"web\"");
        if (random.nextInt(10) > 0) {
            separator(body);
            body.append("\"items\": ");
            if (random.nextInt(6) == 0) {
                body.append(value(random));
            } else {
                body.append('[');
                int lines = random.nextInt(4);
                for (int i = 0; i < lines; i++) {
                    body.append(i == 0 ? "" : ", ").append(random.nextInt(8) == 0 ? value(random) : line(random));
                }
                body.append(']');
            }
        }
        if (random.nextInt(8) == 0) {
            field(body, random, FIELDS[random.nextInt(FIELDS.length)], value(random));
        }
        return body.append('}').toString();
    }

    private static String line(Random random) {
        StringBuilder line = new StringBuilder("{");
        field(line, random, "sku", "\"SKU-1\"");
        field(line, random, "quantity", "2");
        field(line, random, "unitPrice", random.nextBoolean() ? "\"9.95\"" : "9.95");
        return line.append('}').toString();
    }

    /** Absent (1 in 6), a random value (1 in 3), else the valid one. */
    private static void field(StringBuilder object, Random random, String name, String valid) {
        int dice = random.nextInt(6);
        if (dice == 0) {
            return;
        }
        separator(object);
        object.append('"').append(name).append("\": ").append(dice <= 2 ? value(random) : valid);
    }

    private static void separator(StringBuilder object) {
        if (object.charAt(object.length() - 1) != '{') {
            object.append(", ");
        }
    }

    private static String value(Random random) {
        return VALUES[random.nextInt(VALUES.length)];
    }

    private static String mutate(String body, Random random) {
        StringBuilder text = new StringBuilder(body);
        int mutations = 1 + random.nextInt(3);
        for (int i = 0; i < mutations && !text.isEmpty(); i++) {
            int at = random.nextInt(text.length());
            int end = Math.min(text.length(), at + 1 + random.nextInt(6));
            switch (random.nextInt(5)) {
                case 0 -> text.delete(at, end);
                case 1 -> text.insert(at, NOISE.charAt(random.nextInt(NOISE.length())));
                case 2 -> text.insert(at, text.substring(at, end));
                case 3 -> text.setLength(at);
                default -> text.replace(at, end, value(random));
            }
        }
        return text.toString();
    }

    private static String noise(Random random) {
        StringBuilder text = new StringBuilder();
        int length = random.nextInt(40);
        for (int i = 0; i < length; i++) {
            text.append(
                    random.nextInt(4) == 0
                            ? value(random)
                            : String.valueOf(NOISE.charAt(random.nextInt(NOISE.length()))));
        }
        return text.toString();
    }
}
