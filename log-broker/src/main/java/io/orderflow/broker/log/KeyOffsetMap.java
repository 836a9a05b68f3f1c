package io.orderflow.broker.log;

import java.nio.ByteBuffer;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;

/**
 * Record key → offset of its latest record, for one compaction pass, in memory that does not depend on the
 * size of the keys.
 *
 * <p><b>Format.</b> A key is reduced to a 128-bit digest (the first 16 bytes of its SHA-256) and stored with
 * its offset in one {@code long[]}, three longs a slot ({@code digest high, digest low, offset + 1}; 0 marks
 * a free slot), with linear probing. The table doubles while it is at most three-quarters full, up to the
 * capacity that {@code maxKeys} needs: 24 bytes a slot, so 32 to 64 bytes a distinct key, and at most
 * {@link #maxMemoryBytes()}. Nothing is allocated per key.
 *
 * <p><b>Why a digest.</b> Keys are unbounded in size; a digest makes the cost per key fixed. Two keys that
 * share a digest would be treated as one, and the older one's records removed: with 128 bits that takes about
 * 2^64 distinct keys by chance, and SHA-256 (unlike MD5, which Kafka's cleaner uses) gives no practical way to
 * craft such a pair.
 *
 * <p>Not thread-safe: one cleaning pass owns it.
 */
final class KeyOffsetMap {
    private static final int LONGS_PER_SLOT = 3;
    private static final int INITIAL_SLOTS = 1024;
    private static final int MAX_SLOTS = 1 << 29;

    private final int maxKeys;
    private final int maxSlots;
    private final MessageDigest sha256;
    private long[] table;
    private int slots;
    private int size;
    private long hi;
    private long lo;

    /** @param maxKeys the most distinct keys it may hold; {@link #put} refuses a new key beyond that */
    KeyOffsetMap(int maxKeys) {
        if (maxKeys < 1) {
            throw new IllegalArgumentException("maxKeys must be at least 1, got " + maxKeys);
        }
        this.maxKeys = maxKeys;
        this.maxSlots = slotsFor(maxKeys);
        this.slots = Math.min(INITIAL_SLOTS, maxSlots);
        this.table = new long[slots * LONGS_PER_SLOT];
        try {
            this.sha256 = MessageDigest.getInstance("SHA-256");
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("Every Java runtime has SHA-256", e);
        }
    }

    /** The smallest power of two that holds {@code keys} at most three-quarters full. */
    private static int slotsFor(int keys) {
        long needed = ((long) keys * 4 + 2) / 3;
        long slots = Long.highestOneBit(Math.max(needed, 1));
        if (slots < needed) {
            slots <<= 1;
        }
        if (slots > MAX_SLOTS) {
            throw new IllegalArgumentException("maxKeys " + keys + " needs more than " + MAX_SLOTS + " slots");
        }
        return (int) slots;
    }

    /**
     * Records {@code offset} as the latest for {@code key} (offsets must be put in increasing order).
     *
     * @return false, storing nothing, when the key is new and the map already holds {@code maxKeys} keys
     */
    boolean put(ByteBuffer key, long offset) {
        digest(key);
        int slot = find();
        int i = slot * LONGS_PER_SLOT;
        if (table[i + 2] == 0) {
            if (size == maxKeys) {
                return false;
            }
            if ((long) (size + 1) * 4 > (long) slots * 3) {
                grow();
                slot = find();
                i = slot * LONGS_PER_SLOT;
            }
            table[i] = hi;
            table[i + 1] = lo;
            size++;
        }
        table[i + 2] = offset + 1;
        return true;
    }

    /** The latest offset put for {@code key}, or -1 when it was never put. */
    long get(ByteBuffer key) {
        digest(key);
        return table[find() * LONGS_PER_SLOT + 2] - 1;
    }

    /** Distinct keys held. */
    int size() {
        return size;
    }

    /** The most memory the table can grow to. */
    long maxMemoryBytes() {
        return (long) maxSlots * LONGS_PER_SLOT * Long.BYTES;
    }

    /** Sets {@code hi, lo} to the key's digest; the key buffer's position is left alone. */
    private void digest(ByteBuffer key) {
        sha256.update(key.duplicate());
        ByteBuffer d = ByteBuffer.wrap(sha256.digest());
        hi = d.getLong();
        lo = d.getLong();
    }

    /** The slot holding the current digest, or the free slot where it would go. */
    private int find() {
        int mask = slots - 1;
        int slot = (int) lo & mask;
        while (true) {
            int i = slot * LONGS_PER_SLOT;
            if (table[i + 2] == 0 || (table[i] == hi && table[i + 1] == lo)) {
                return slot;
            }
            slot = (slot + 1) & mask;
        }
    }

    private void grow() {
        if (slots >= maxSlots) {
            return; // sized for maxKeys at three-quarters full: it never needs to grow past maxSlots
        }
        long[] old = table;
        long savedHi = hi;
        long savedLo = lo;
        slots *= 2;
        table = new long[slots * LONGS_PER_SLOT];
        for (int i = 0; i < old.length; i += LONGS_PER_SLOT) {
            if (old[i + 2] != 0) {
                hi = old[i];
                lo = old[i + 1];
                int j = find() * LONGS_PER_SLOT;
                table[j] = hi;
                table[j + 1] = lo;
                table[j + 2] = old[i + 2];
            }
        }
        hi = savedHi;
        lo = savedLo;
    }
}
