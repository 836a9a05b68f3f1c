package io.orderflow.ops.backup;

import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.stream.Stream;

/**
 * A copy of a running broker's log directory that the broker can start from: every partition a prefix of its log as it
 * was at one moment of the copy, taken without stopping the broker or its producers.
 *
 * <p><b>Why it is a prefix.</b> A partition's log is append-only segments, each sealed (and fsynced) when the next one
 * begins. Per partition, the segment files are opened newest first, each file's size read as it is opened; an open file
 * keeps the bytes it had even if retention deletes it or compaction renames a cleaned copy over it later. A segment
 * opened after a newer one already existed was sealed, so it is whole; the newest is copied up to the size it had when
 * opened, which may end inside a batch still being written. So each partition's copy is its log up to some offset,
 * perhaps with a torn last batch, which is what a power cut leaves, and the broker's own recovery (on an unclean
 * start: the last segment validated batch by batch and truncated at the first bad one, missing indexes rebuilt)
 * turns it into a log. Indexes are therefore not copied (they are rebuilt), nor the clean-shutdown markers (the copy
 * must be recovered), nor compaction's unfinished or deleted files, nor the data directory's lock.
 *
 * <p><b>Committed offsets never point past the copied records.</b> The partitions of {@code __consumer_offsets} are
 * opened before any other: an offset committed there was committed for records that already existed, and every other
 * partition is opened later, so its copy holds at least those records.
 *
 * <p><b>Metadata.</b> Topics' configurations, ACLs, SCRAM credentials, quotas, the cluster id and the producer-id
 * block are files the broker replaces whole (a temporary file renamed over the old), copied after the partitions were
 * listed: a topic created meanwhile has its configuration and no log yet, which the broker creates empty.
 */
final class BrokerLogCopy {
    static final String CONSUMER_OFFSETS = "__consumer_offsets";
    private static final String LOG = ".log";

    /** What was copied. */
    record Copied(int partitions, int segments, long bytes) {}

    private BrokerLogCopy() {}

    static Copied copy(Path brokerDirectory, Path target) throws IOException {
        List<Path> partitions;
        try (Stream<Path> entries = Files.list(brokerDirectory)) {
            partitions = entries.filter(BrokerLogCopy::isPartition)
                    .sorted(Comparator.comparing((Path dir) -> !isOffsetsPartition(dir))
                            .thenComparing(Path::toString))
                    .toList();
        }
        List<OpenSegment> opened = new ArrayList<>();
        try {
            for (Path partition : partitions) {
                opened.addAll(openNewestFirst(partition));
            }
            copyMetadata(brokerDirectory, target);
            long bytes = 0;
            for (Path partition : partitions) {
                Path copy = target.resolve(partition.getFileName().toString());
                Files.createDirectories(copy);
                copySmallFiles(partition, copy);
            }
            for (OpenSegment segment : opened) {
                bytes += segment.copyTo(
                        target.resolve(segment.partition().getFileName().toString()));
            }
            return new Copied(partitions.size(), opened.size(), bytes);
        } finally {
            for (OpenSegment segment : opened) {
                segment.channel().close();
            }
        }
    }

    /** A segment's log file, open, and the size it had when it was opened. */
    private record OpenSegment(Path partition, String name, FileChannel channel, long size) {
        long copyTo(Path directory) throws IOException {
            try (FileChannel out = FileChannel.open(
                    directory.resolve(name), StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE)) {
                long done = 0;
                while (done < size) {
                    long moved = channel.transferTo(done, size - done, out);
                    if (moved <= 0) {
                        throw new IOException(
                                name + " of " + partition + " ended at " + done + " of " + size + " bytes");
                    }
                    done += moved;
                }
                out.force(true);
                return done;
            }
        }
    }

    private static List<OpenSegment> openNewestFirst(Path partition) throws IOException {
        List<String> logs;
        try (Stream<Path> files = Files.list(partition)) {
            logs = files.map(file -> file.getFileName().toString())
                    .filter(name -> name.endsWith(LOG))
                    .sorted(Comparator.reverseOrder()) // base offsets are zero-padded: newest first
                    .toList();
        }
        List<OpenSegment> opened = new ArrayList<>();
        for (String name : logs) {
            FileChannel channel;
            try {
                channel = FileChannel.open(partition.resolve(name), StandardOpenOption.READ);
            } catch (NoSuchFileException deletedMeanwhile) {
                continue; // retention or compaction removed it after the listing: the log starts later
            }
            opened.add(new OpenSegment(partition, name, channel, channel.size()));
        }
        return opened;
    }

    /**
     * The partition's files that are not segments, indexes or leftovers: producer-state snapshots and the log start
     * offset checkpoint. A snapshot past the copied log's end is ignored by the broker's recovery.
     */
    private static void copySmallFiles(Path partition, Path copy) throws IOException {
        try (Stream<Path> files = Files.list(partition)) {
            for (Path file : files.toList()) {
                String name = file.getFileName().toString();
                if (name.endsWith(".snapshot") || name.equals("log-start-offset")) {
                    copyIfStillThere(file, copy.resolve(name));
                }
            }
        }
    }

    /** Everything beside the partitions: topics, security, quotas, cluster id, producer ids. */
    private static void copyMetadata(Path brokerDirectory, Path target) throws IOException {
        Files.createDirectories(target);
        try (Stream<Path> entries = Files.list(brokerDirectory)) {
            for (Path entry : entries.toList()) {
                String name = entry.getFileName().toString();
                if (isPartition(entry) || name.equals(".lock") || name.endsWith(".tmp")) {
                    continue;
                }
                if (Files.isDirectory(entry)) {
                    TreeCopy.copy(
                            entry,
                            target.resolve(name),
                            dir -> true,
                            file -> !file.toString().endsWith(".tmp"));
                } else {
                    copyIfStillThere(entry, target.resolve(name));
                }
            }
        }
    }

    private static void copyIfStillThere(Path from, Path to) throws IOException {
        try {
            Files.copy(from, to);
        } catch (NoSuchFileException replacedOrDeleted) {
            // a snapshot deleted, or a metadata file being replaced: the broker does without, or the next copy has it
        }
    }

    /** A partition directory: {@code <topic>-<partition>}. */
    static boolean isPartition(Path entry) {
        String name = entry.getFileName().toString();
        int dash = name.lastIndexOf('-');
        return Files.isDirectory(entry)
                && dash > 0
                && dash < name.length() - 1
                && name.substring(dash + 1).chars().allMatch(Character::isDigit);
    }

    private static boolean isOffsetsPartition(Path partition) {
        return partition.getFileName().toString().startsWith(CONSUMER_OFFSETS + "-");
    }
}
