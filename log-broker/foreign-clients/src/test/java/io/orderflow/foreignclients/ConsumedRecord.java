package io.orderflow.foreignclients;

import java.util.Optional;

/** One record as a client printed it: {@code <partition> <offset> <key> <value>}. */
record ConsumedRecord(int partition, long offset, String key, String value) {
    /** The record on {@code line}, or empty for anything else a client prints (its assignment, say). */
    static Optional<ConsumedRecord> parse(String line) {
        String[] f = line.trim().split(" ", 4);
        if (f.length != 4 || !f[0].matches("\\d+") || !f[1].matches("\\d+")) {
            return Optional.empty();
        }
        return Optional.of(new ConsumedRecord(Integer.parseInt(f[0]), Long.parseLong(f[1]), f[2], f[3]));
    }
}
