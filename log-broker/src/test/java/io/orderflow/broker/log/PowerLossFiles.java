package io.orderflow.broker.log;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.MappedByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.channels.ReadableByteChannel;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.OpenOption;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.BasicFileAttributes;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.function.Consumer;

/**
 * A {@link LogFiles} that can pull the plug: {@link #powerLoss} rewrites every file it opened to what a disk
 * could hold after the machine lost power at that instant.
 *
 * <p><b>What is modelled.</b>
 *
 * <ul>
 *   <li>Content. A file's durable content is what it held when its last {@code force()} returned (or, for a
 *       file that existed before this injector first opened it, what it held then). Writes and truncations
 *       since are remembered in order. At power loss each file keeps its durable content plus a random prefix
 *       of those later operations; the operation after the prefix may be torn: a random prefix of its bytes
 *       lands, and the last sector (up to 512 bytes) of what landed may be garbage.
 *   <li>Names. A file created through {@link #open} after the last {@link #syncDirectory} of its directory
 *       may vanish, whether or not its content was fsynced: without a directory fsync the entry itself is not
 *       durable.
 * </ul>
 *
 * <p><b>Not modelled.</b> Writeback out of order (a later unsynced write landing while an earlier one does
 * not): surviving operations are always a prefix. Renames and deletes (done with {@link Files} outside this
 * interface) take effect at once and are never undone. Files written without this interface, and
 * directories, never lose anything.
 *
 * <p>Files are tracked by file key (device and inode), so content follows a file through renames. After a
 * power loss every operation through this injector fails with an {@link IOException}: a dead machine writes
 * and fsyncs nothing more. Use a new instance for the next life of the directory. Thread-safe: each file's
 * operations are serialised on its own lock, so a power loss falls between two operations of a file.
 */
final class PowerLossFiles implements LogFiles {
    private static final int SECTOR = 512;

    private final Map<Object, FileState> states = new HashMap<>();
    private final Set<Path> dirs = new LinkedHashSet<>();
    private volatile boolean dead;
    private volatile Consumer<Path> beforeForce = path -> {};

    /** What one file held at its last fsync, and what happened to it since. */
    private static final class FileState {
        final Path dir;
        byte[] durable;
        final List<Op> sinceForce = new ArrayList<>();
        boolean nameDurable;

        FileState(Path dir, byte[] durable, boolean nameDurable) {
            this.dir = dir;
            this.durable = durable;
            this.nameDurable = nameDurable;
        }
    }

    private sealed interface Op {}

    private record Write(long position, byte[] bytes) implements Op {}

    private record Truncate(long size) implements Op {}

    /** Runs {@code hook} with the file's path before every fsync of a file, outside any lock; for race tests. */
    void beforeForce(Consumer<Path> hook) {
        this.beforeForce = hook;
    }

    @Override
    public FileChannel open(Path path, OpenOption... options) throws IOException {
        ensureAlive();
        Set<OpenOption> opts = new HashSet<>(Arrays.asList(options));
        Path absolute = path.toAbsolutePath().normalize();
        if (!opts.contains(StandardOpenOption.WRITE) && !opts.contains(StandardOpenOption.APPEND)) {
            return FileChannel.open(path, options);
        }
        boolean existed = Files.exists(absolute);
        byte[] before = existed ? Files.readAllBytes(absolute) : null;
        Set<OpenOption> readable = new HashSet<>(opts);
        readable.add(StandardOpenOption.READ); // force() reads the file back to record what became durable
        FileChannel channel = FileChannel.open(path, readable);
        Object key = Files.readAttributes(absolute, BasicFileAttributes.class).fileKey();
        if (key == null) {
            channel.close();
            throw new IOException("The file system gives no file keys; PowerLossFiles cannot track " + path);
        }
        FileState state;
        synchronized (states) {
            dirs.add(absolute.getParent());
            state = existed ? states.get(key) : null;
            if (state == null) {
                // A created file starts empty and unnamed on disk; an untracked existing one counts as durable.
                // A key seen before but now created again is a reused inode: forget the old file.
                state = new FileState(absolute.getParent(), existed ? before : new byte[0], existed);
                states.put(key, state);
            }
        }
        if (existed && opts.contains(StandardOpenOption.TRUNCATE_EXISTING)) {
            synchronized (state) {
                state.sinceForce.add(new Truncate(0));
            }
        }
        return new PowerLossChannel(channel, state, absolute, opts.contains(StandardOpenOption.APPEND));
    }

    @Override
    public void syncDirectory(Path dir) throws IOException {
        ensureAlive();
        Path absolute = dir.toAbsolutePath().normalize();
        try (FileChannel channel = FileChannel.open(absolute, StandardOpenOption.READ)) {
            channel.force(true);
        }
        List<FileState> inDir;
        synchronized (states) {
            inDir = states.values().stream().filter(s -> s.dir.equals(absolute)).toList();
        }
        for (FileState s : inDir) {
            synchronized (s) {
                s.nameDurable = true;
            }
        }
    }

    /**
     * Cuts the power: every file this injector opened is rewritten to its durable content plus a random
     * prefix of what came after (see the class comment). Returns what it did, for assertion messages.
     */
    String powerLoss(Random random) throws IOException {
        return crash(random);
    }

    /** Cuts the power in the worst way: every file keeps exactly what was fsynced; unsynced new files vanish. */
    String powerLossKeepingOnlyWhatWasSynced() throws IOException {
        return crash(null);
    }

    private String crash(Random random) throws IOException {
        dead = true;
        List<Map.Entry<Object, FileState>> tracked;
        synchronized (states) {
            tracked = new ArrayList<>(states.entrySet());
        }
        Map<Object, Path> current = scan();
        StringBuilder report = new StringBuilder("power loss:");
        for (Map.Entry<Object, FileState> e : tracked) {
            FileState s = e.getValue();
            synchronized (s) {
                boolean vanish = !s.nameDurable && (random == null || random.nextBoolean());
                int keep = random == null ? 0 : random.nextInt(s.sinceForce.size() + 1);
                byte[] content = s.durable;
                for (int i = 0; i < keep; i++) {
                    content = apply(content, s.sinceForce.get(i));
                }
                String torn = "";
                if (random != null
                        && keep < s.sinceForce.size()
                        && s.sinceForce.get(keep) instanceof Write w
                        && w.bytes().length > 1
                        && random.nextBoolean()) {
                    byte[] landed = Arrays.copyOf(w.bytes(), 1 + random.nextInt(w.bytes().length - 1));
                    torn = ", torn write of " + landed.length + "/" + w.bytes().length + " bytes";
                    if (random.nextBoolean()) {
                        int garbage = Math.min(landed.length, 1 + random.nextInt(SECTOR));
                        byte[] noise = new byte[garbage];
                        random.nextBytes(noise);
                        System.arraycopy(noise, 0, landed, landed.length - garbage, garbage);
                        torn += " ending in " + garbage + " garbage bytes";
                    }
                    content = apply(content, new Write(w.position(), landed));
                }
                Path path = rewrite(e.getKey(), vanish ? null : content, current);
                if (path != null) {
                    report.append(' ').append(path.getFileName());
                    report.append(
                            vanish
                                    ? " vanished;"
                                    : " kept " + keep + "/" + s.sinceForce.size() + " unsynced operations" + torn
                                            + " -> " + content.length + " bytes;");
                }
            }
        }
        return report.toString();
    }

    /**
     * Replaces the content of the file with key {@code key} (deletes it when {@code content} is null); returns
     * its path, or null when it no longer exists. Renames are not intercepted and the log may still be renaming
     * files (a dead machine's last calls racing the test), so {@code current} is refreshed if the file moved.
     */
    private Path rewrite(Object key, byte[] content, Map<Object, Path> current) throws IOException {
        for (int attempt = 0; ; attempt++) {
            Path path = current.get(key);
            if (path == null) {
                return null; // deleted since: nothing to bring back
            }
            try {
                if (content == null) {
                    Files.delete(path);
                } else {
                    Files.write(path, content, StandardOpenOption.WRITE, StandardOpenOption.TRUNCATE_EXISTING);
                }
                return path;
            } catch (NoSuchFileException moved) {
                if (attempt == 10) {
                    throw moved;
                }
                current.clear();
                current.putAll(scan());
            }
        }
    }

    /** Every file in the directories of tracked files, by file key. */
    private Map<Object, Path> scan() throws IOException {
        List<Path> known;
        synchronized (states) {
            known = new ArrayList<>(dirs);
        }
        Map<Object, Path> byKey = new HashMap<>();
        for (Path dir : known) {
            if (!Files.isDirectory(dir)) {
                continue;
            }
            try (DirectoryStream<Path> entries = Files.newDirectoryStream(dir)) {
                for (Path p : entries) {
                    try {
                        byKey.put(
                                Files.readAttributes(p, BasicFileAttributes.class)
                                        .fileKey(),
                                p);
                    } catch (NoSuchFileException gone) {
                        // renamed or deleted while listing
                    }
                }
            }
        }
        return byKey;
    }

    private static byte[] apply(byte[] content, Op op) {
        return switch (op) {
            case Write w -> {
                long end = w.position() + w.bytes().length;
                byte[] out = Arrays.copyOf(content, (int) Math.max(content.length, end));
                System.arraycopy(w.bytes(), 0, out, (int) w.position(), w.bytes().length);
                yield out;
            }
            case Truncate t -> t.size() < content.length ? Arrays.copyOf(content, (int) t.size()) : content;
        };
    }

    private void ensureAlive() throws IOException {
        if (dead) {
            throw new IOException("The power is off: PowerLossFiles simulated a power loss");
        }
    }

    /** Forwards to the real channel and records what became durable and what did not. */
    private final class PowerLossChannel extends ForwardingFileChannel {
        private final FileState state;
        private final Path path;
        private final boolean append;

        PowerLossChannel(FileChannel delegate, FileState state, Path path, boolean append) {
            super(delegate);
            this.state = state;
            this.path = path;
            this.append = append;
        }

        @Override
        public int write(ByteBuffer src) throws IOException {
            synchronized (state) {
                ensureAlive();
                long at = append ? delegate.size() : delegate.position();
                ByteBuffer copy = src.duplicate();
                int n = delegate.write(src);
                record(at, copy, n);
                return n;
            }
        }

        @Override
        public int write(ByteBuffer src, long position) throws IOException {
            synchronized (state) {
                ensureAlive();
                ByteBuffer copy = src.duplicate();
                int n = delegate.write(src, position);
                record(position, copy, n);
                return n;
            }
        }

        @Override
        public long write(ByteBuffer[] srcs, int offset, int length) throws IOException {
            long total = 0;
            for (int i = offset; i < offset + length; i++) {
                while (srcs[i].hasRemaining()) {
                    total += write(srcs[i]);
                }
            }
            return total;
        }

        private void record(long position, ByteBuffer written, int n) {
            if (n > 0) {
                byte[] bytes = new byte[n];
                written.get(bytes);
                state.sinceForce.add(new Write(position, bytes));
            }
        }

        @Override
        public FileChannel truncate(long size) throws IOException {
            synchronized (state) {
                ensureAlive();
                delegate.truncate(size);
                state.sinceForce.add(new Truncate(size));
                return this;
            }
        }

        @Override
        public void force(boolean metaData) throws IOException {
            beforeForce.accept(path);
            synchronized (state) {
                ensureAlive();
                delegate.force(metaData);
                ByteBuffer all = ByteBuffer.allocate(Math.toIntExact(delegate.size()));
                while (all.hasRemaining() && delegate.read(all, all.position()) >= 0) {
                    // read the whole file: it is now what the disk holds
                }
                state.durable = Arrays.copyOf(all.array(), all.position());
                state.sinceForce.clear();
            }
        }

        @Override
        public long transferFrom(ReadableByteChannel src, long position, long count) {
            throw new UnsupportedOperationException("PowerLossFiles does not track transferFrom; add it first");
        }

        @Override
        public MappedByteBuffer map(MapMode mode, long position, long size) throws IOException {
            if (mode != MapMode.READ_ONLY) {
                throw new UnsupportedOperationException("PowerLossFiles does not track writes through a mapping");
            }
            return delegate.map(mode, position, size);
        }
    }
}
