package io.orderflow.broker.log;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import org.apache.kafka.common.compress.Compression;
import org.apache.kafka.common.record.internal.MemoryRecords;
import org.apache.kafka.common.record.internal.Record;
import org.apache.kafka.common.record.internal.RecordBatch;
import org.apache.kafka.common.record.internal.SimpleRecord;

/** Builds record batches the way a producer would, and reads them back, for storage tests. */
final class TestBatches {
    private TestBatches() {}

    /** One uncompressed batch of string records, all with {@code timestamp}; keys may be null. */
    static ByteBuffer batch(long timestamp, String... keyValuePairs) {
        return build(Compression.NONE, -1, (short) -1, -1, records(timestamp, keyValuePairs));
    }

    static ByteBuffer compressed(Compression compression, long timestamp, String... keyValuePairs) {
        return build(compression, -1, (short) -1, -1, records(timestamp, keyValuePairs));
    }

    static ByteBuffer idempotent(long producerId, short epoch, int baseSequence, long timestamp, String... kvs) {
        return build(Compression.NONE, producerId, epoch, baseSequence, records(timestamp, kvs));
    }

    /** A batch of a transactional producer, as it sends one inside its transaction. */
    static ByteBuffer transactional(long producerId, short epoch, int baseSequence, long timestamp, String... kvs) {
        return MemoryRecords.withTransactionalRecords(
                        Compression.NONE, producerId, epoch, baseSequence, records(timestamp, kvs))
                .buffer()
                .duplicate();
    }

    /** A batch of {@code count} values of {@code valueSize} bytes each. */
    static ByteBuffer sized(long timestamp, int count, int valueSize) {
        SimpleRecord[] records = new SimpleRecord[count];
        for (int i = 0; i < count; i++) {
            records[i] = new SimpleRecord(timestamp, null, new byte[valueSize]);
        }
        return build(Compression.NONE, -1, (short) -1, -1, records);
    }

    /** Concatenates batches into one append. */
    static ByteBuffer concat(ByteBuffer... batches) {
        int size = 0;
        for (ByteBuffer b : batches) {
            size += b.remaining();
        }
        ByteBuffer out = ByteBuffer.allocate(size);
        for (ByteBuffer b : batches) {
            out.put(b.duplicate());
        }
        return out.flip();
    }

    private static SimpleRecord[] records(long timestamp, String... kvs) {
        if (kvs.length % 2 != 0) {
            throw new IllegalArgumentException("key/value pairs expected");
        }
        SimpleRecord[] records = new SimpleRecord[kvs.length / 2];
        for (int i = 0; i < records.length; i++) {
            records[i] = new SimpleRecord(timestamp, bytes(kvs[2 * i]), bytes(kvs[2 * i + 1]));
        }
        return records;
    }

    private static byte[] bytes(String s) {
        return s == null ? null : s.getBytes(StandardCharsets.UTF_8);
    }

    private static ByteBuffer build(
            Compression compression, long producerId, short epoch, int baseSequence, SimpleRecord... records) {
        MemoryRecords built = producerId < 0
                ? MemoryRecords.withRecords(compression, records)
                : MemoryRecords.withIdempotentRecords(compression, producerId, epoch, baseSequence, records);
        return built.buffer().duplicate();
    }

    /** A record as a consumer would see it. */
    record Read(long offset, long timestamp, String key, String value) {}

    /** Every record in the buffer of whole batches, in order. */
    static List<Read> decode(ByteBuffer batches) {
        List<Read> out = new ArrayList<>();
        for (RecordBatch batch :
                MemoryRecords.readableRecords(batches.duplicate()).batches()) {
            batch.ensureValid();
            for (Record r : batch) {
                out.add(new Read(r.offset(), r.timestamp(), string(r.key()), string(r.value())));
            }
        }
        return out;
    }

    /**
     * Every record the log serves from {@code from} up to its high watermark, fetched the way a consumer does:
     * the next fetch starts after the last batch received (after compaction a batch may end past its last record).
     */
    static List<Read> readAll(PartitionLog log, long from) {
        List<Read> out = new ArrayList<>();
        long next = from;
        while (next < log.highWatermark()) {
            LogReadResult result = log.read(next, 64 * 1024, false);
            if (result.records().isEmpty()) {
                break;
            }
            long before = next;
            for (RecordBatch batch :
                    MemoryRecords.readableRecords(result.records().read()).batches()) {
                batch.ensureValid();
                for (Record r : batch) {
                    if (r.offset() >= next) {
                        out.add(new Read(r.offset(), r.timestamp(), string(r.key()), string(r.value())));
                    }
                }
                next = Math.max(next, batch.nextOffset());
            }
            if (next == before) {
                throw new AssertionError("read at " + next + " made no progress in " + log);
            }
        }
        return out;
    }

    static List<Read> readAll(PartitionLog log) {
        return readAll(log, log.logStartOffset());
    }

    private static String string(ByteBuffer b) {
        if (b == null) {
            return null;
        }
        byte[] bytes = new byte[b.remaining()];
        b.duplicate().get(bytes);
        return new String(bytes, StandardCharsets.UTF_8);
    }
}
