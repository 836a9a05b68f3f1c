package io.orderflow.frames;

import io.orderflow.property.Gen;
import java.nio.ByteBuffer;
import java.util.Arrays;
import java.util.List;

/**
 * One change to a frame, as a fuzzer makes them: a flipped bit, a length or count field overwritten with a
 * value near a limit, a truncation, bytes inserted or deleted, the header's API key or version swapped for
 * another's, two frames spliced. Positions wrap around the frame's length, so any mutation applies to any frame;
 * records, so they print readably. A frame here is header and body, without the size prefix.
 */
public sealed interface FrameMutation {
    byte[] apply(byte[] frame);

    /** Applies {@code mutations} in order. */
    static byte[] applyAll(byte[] frame, List<FrameMutation> mutations) {
        byte[] f = frame;
        for (FrameMutation m : mutations) {
            f = m.apply(f);
        }
        return f;
    }

    record FlipBit(int position, int bit) implements FrameMutation {
        public byte[] apply(byte[] f) {
            if (f.length == 0) {
                return f;
            }
            byte[] m = f.clone();
            m[position % m.length] ^= (byte) (1 << bit);
            return m;
        }
    }

    /** Overwrites 1, 2 or 4 bytes with a value, as if a length, count or size field said something else. */
    record OverwriteField(int position, int width, int value) implements FrameMutation {
        public byte[] apply(byte[] f) {
            if (f.length < width) {
                return f;
            }
            byte[] m = f.clone();
            ByteBuffer buf = ByteBuffer.wrap(m);
            int at = position % (m.length - width + 1);
            switch (width) {
                case 1 -> buf.put(at, (byte) value);
                case 2 -> buf.putShort(at, (short) value);
                default -> buf.putInt(at, value);
            }
            return m;
        }
    }

    /** Overwrites bytes with an unsigned varint, the length encoding of flexible versions. */
    record OverwriteVarint(int position, int value) implements FrameMutation {
        public byte[] apply(byte[] f) {
            byte[] varint = unsignedVarint(value);
            if (f.length < varint.length) {
                return f;
            }
            byte[] m = f.clone();
            System.arraycopy(varint, 0, m, position % (m.length - varint.length + 1), varint.length);
            return m;
        }
    }

    record Truncate(int keep) implements FrameMutation {
        public byte[] apply(byte[] f) {
            return Arrays.copyOf(f, f.length == 0 ? 0 : keep % f.length);
        }
    }

    record Insert(int position, byte[] bytes) implements FrameMutation {
        public byte[] apply(byte[] f) {
            int at = f.length == 0 ? 0 : position % (f.length + 1);
            byte[] m = new byte[f.length + bytes.length];
            System.arraycopy(f, 0, m, 0, at);
            System.arraycopy(bytes, 0, m, at, bytes.length);
            System.arraycopy(f, at, m, at + bytes.length, f.length - at);
            return m;
        }

        @Override
        public String toString() {
            return "Insert[position=" + position + ", bytes=" + Arrays.toString(bytes) + "]";
        }
    }

    record Delete(int position, int length) implements FrameMutation {
        public byte[] apply(byte[] f) {
            if (f.length == 0) {
                return f;
            }
            int at = position % f.length;
            int n = Math.min(length, f.length - at);
            byte[] m = new byte[f.length - n];
            System.arraycopy(f, 0, m, 0, at);
            System.arraycopy(f, at + n, m, at, f.length - at - n);
            return m;
        }
    }

    /** The frame up to {@code position}, then {@code tail} (another frame's end): two requests mixed into one. */
    record Splice(int position, byte[] tail) implements FrameMutation {
        public byte[] apply(byte[] f) {
            int at = f.length == 0 ? 0 : position % (f.length + 1);
            byte[] m = Arrays.copyOf(f, at + tail.length);
            System.arraycopy(tail, 0, m, at, tail.length);
            return m;
        }

        @Override
        public String toString() {
            return "Splice[position=" + position + ", tail=" + tail.length + " bytes]";
        }
    }

    /** The header's API key (its first two bytes) set to {@code apiKey}: the body is then read as that API's. */
    static FrameMutation apiKey(int apiKey) {
        return new OverwriteField(0, 2, apiKey);
    }

    /** The header's API version (bytes 2 and 3) set to {@code version}: the body is then read as that version's. */
    static FrameMutation apiVersion(int version) {
        return new OverwriteField(2, 2, version);
    }

    /** {@code frame} cut at a random position, with the end of {@code other} from a random position after it. */
    static FrameMutation splice(Gen gen, byte[] other) {
        int from = gen.ints(0, other.length);
        return new Splice(position(gen), Arrays.copyOfRange(other, from, other.length));
    }

    /** Any one mutation, with field values near the limits a decoder must check. */
    static FrameMutation any(Gen gen) {
        return gen.oneOfGenerators(
                g -> new FlipBit(position(g), g.ints(0, 7)),
                g -> new OverwriteField(position(g), g.oneOf(1, 2, 4), interesting(g)),
                g -> new OverwriteVarint(position(g), interesting(g)),
                g -> new Truncate(position(g)),
                g -> new Insert(position(g), g.bytes(1, 16)),
                g -> new Delete(position(g), g.ints(1, 16)));
    }

    private static int position(Gen gen) {
        return gen.ints(0, 100_000);
    }

    /** Half the time a value near a limit a decoder must check, else any int. */
    private static int interesting(Gen gen) {
        return gen.bool()
                ? gen.oneOf(
                        -1,
                        0,
                        1,
                        2,
                        127,
                        128,
                        255,
                        0x7FFF,
                        0x8000,
                        0xFFFF,
                        1_000_000,
                        0x7FFF_FFF0,
                        Integer.MAX_VALUE,
                        Integer.MIN_VALUE)
                : gen.anyInt();
    }

    private static byte[] unsignedVarint(int value) {
        ByteBuffer buf = ByteBuffer.allocate(5);
        long v = value & 0xFFFF_FFFFL;
        while ((v & ~0x7FL) != 0) {
            buf.put((byte) ((v & 0x7F) | 0x80));
            v >>>= 7;
        }
        buf.put((byte) v);
        return Arrays.copyOf(buf.array(), buf.position());
    }
}
