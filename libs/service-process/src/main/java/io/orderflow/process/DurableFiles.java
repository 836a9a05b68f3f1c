package io.orderflow.process;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.AtomicMoveNotSupportedException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.PosixFilePermission;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.Set;

/**
 * Files that survive a power cut whole: what the launcher writes once and relies on at every later start (the
 * platform's secrets, its local certificates). A write goes to a temporary file beside the target, which is fsynced,
 * renamed over the target and made durable by an fsync of the directory: after a cut the file holds its old content or
 * its new one, never a part, and never vanishes once written. Directories made here are fsynced into their parents the
 * same way. ({@code ops/power-cut}'s power-loss file system is what showed a secret written without this lost at a cut,
 * and the broker refusing the new password made in its place.)
 *
 * <p>Stateless.
 */
public final class DurableFiles {
    private static final Set<PosixFilePermission> OWNER_ONLY = PosixFilePermissions.fromString("rw-------");

    private DurableFiles() {}

    /** Replaces {@code file} with {@code bytes}, readable and writable by its owner only, durably. */
    public static void writeOwnerOnly(Path file, byte[] bytes) throws IOException {
        Path temporary = file.resolveSibling(file.getFileName() + ".new");
        Files.deleteIfExists(temporary);
        Files.createFile(temporary);
        try {
            Files.setPosixFilePermissions(temporary, OWNER_ONLY);
        } catch (UnsupportedOperationException notPosix) {
            // the directory's own permissions apply
        }
        try (FileChannel channel = FileChannel.open(temporary, StandardOpenOption.WRITE)) {
            ByteBuffer buffer = ByteBuffer.wrap(bytes);
            while (buffer.hasRemaining()) {
                channel.write(buffer);
            }
            channel.force(true);
        }
        try {
            Files.move(temporary, file, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
        } catch (AtomicMoveNotSupportedException e) {
            Files.move(temporary, file, StandardCopyOption.REPLACE_EXISTING);
        }
        fsync(file.toAbsolutePath().getParent());
    }

    /**
     * Creates {@code dir} and its missing parents, and makes the whole path durable: {@code dir} and each of its
     * ancestors fsynced, so that its name survives a cut even where an ancestor was made before without an fsync.
     */
    public static void createDirectories(Path dir) throws IOException {
        Path absolute = dir.toAbsolutePath().normalize();
        Deque<Path> missing = new ArrayDeque<>();
        for (Path each = absolute; each != null && !Files.isDirectory(each); each = each.getParent()) {
            missing.push(each);
        }
        while (!missing.isEmpty()) {
            Path made = missing.pop();
            try {
                Files.createDirectory(made);
            } catch (java.nio.file.FileAlreadyExistsException raced) {
                if (!Files.isDirectory(made)) {
                    throw raced;
                }
            }
        }
        for (Path each = absolute; each != null; each = each.getParent()) {
            fsync(each);
        }
    }

    /**
     * fsync of every file and directory under {@code root}, each directory after what it holds, then of {@code root}'s
     * parent: a tree written without fsyncs (PostgreSQL's initdb as the embedded server runs it) made durable at once.
     */
    public static void fsyncTree(Path root) throws IOException {
        try (java.util.stream.Stream<Path> paths = Files.walk(root)) {
            java.util.List<Path> all = paths.toList();
            for (Path path : all.reversed()) { // children before their directory
                if (Files.isRegularFile(path, java.nio.file.LinkOption.NOFOLLOW_LINKS)
                        || Files.isDirectory(path, java.nio.file.LinkOption.NOFOLLOW_LINKS)) {
                    fsync(path);
                }
            }
        }
        fsync(root.toAbsolutePath().getParent());
    }

    /** fsync of a file or a directory: its content, or its entries, on disk. */
    public static void fsync(Path path) throws IOException {
        try (FileChannel channel = FileChannel.open(path, StandardOpenOption.READ)) {
            channel.force(true);
        }
    }
}
