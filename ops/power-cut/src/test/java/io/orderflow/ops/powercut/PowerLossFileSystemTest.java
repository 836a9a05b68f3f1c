package io.orderflow.ops.powercut;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The power-loss file system mounted for real (skipped, naming the packages, where FUSE or gcc is missing): after a
 * cut, exactly what was fsynced is there, through the same calls the broker and PostgreSQL make (write, fsync of a file,
 * fsync of a directory, rename, truncate).
 */
class PowerLossFileSystemTest {
    private static Path program;

    @TempDir
    Path dir;

    private PowerLossFileSystem fs;
    private Path root;

    @BeforeAll
    static void compile() throws Exception {
        assumeTrue(
                PowerLossFileSystem.unavailable().isEmpty(),
                () -> PowerLossFileSystem.unavailable().orElseThrow());
        program = PowerLossFileSystem.compile(Path.of("target", "power-loss-fs"));
    }

    @BeforeEach
    void mount() throws Exception {
        fs = PowerLossFileSystem.mount(program, dir.resolve("backing"), dir.resolve("mount"), dir.resolve("fs.log"));
        root = fs.root();
    }

    @AfterEach
    void unmount() throws Exception {
        if (fs != null) {
            fs.close();
        }
    }

    @Test
    void aFsyncedFileKeepsItsBytesAndNameAndLosesWhatCameAfter() throws Exception {
        write(root.resolve("log"), "first", true);
        append(root.resolve("log"), "-second", false);
        assertThat(Files.readString(root.resolve("log"))).isEqualTo("first-second");

        fs.cut(List.of());

        assertThat(Files.readString(root.resolve("log"))).isEqualTo("first");
    }

    @Test
    void aFileNeitherItNorItsDirectoryFsyncedIsGone() throws Exception {
        write(root.resolve("kept"), "kept", true);
        write(root.resolve("never-synced"), "lost", false);

        fs.cut(List.of());

        assertThat(names(root)).containsExactly("kept");
    }

    @Test
    void aDirectoryFsyncKeepsItsNamesButNotTheirUnsyncedBytes() throws Exception {
        Files.createDirectory(root.resolve("topic-0"));
        write(root.resolve("topic-0/00000.log"), "records", true);
        write(root.resolve("topic-0/00000.index"), "index", false);
        fsyncDirectory(root.resolve("topic-0"));
        Files.createDirectory(root.resolve("never-synced-dir"));

        fs.cut(List.of());

        assertThat(names(root)).containsExactly("topic-0");
        assertThat(names(root.resolve("topic-0"))).containsExactly("00000.index", "00000.log");
        assertThat(Files.readString(root.resolve("topic-0/00000.log"))).isEqualTo("records");
        assertThat(Files.size(root.resolve("topic-0/00000.index"))).isZero();
    }

    @Test
    void aRenameIsKeptOnlyOnceItsDirectoryIsFsynced() throws Exception {
        write(root.resolve("checkpoint"), "old", true);
        write(root.resolve("checkpoint.tmp"), "new", true);
        Files.move(root.resolve("checkpoint.tmp"), root.resolve("checkpoint"), StandardCopyOption.ATOMIC_MOVE);
        assertThat(Files.readString(root.resolve("checkpoint"))).isEqualTo("new");

        fs.cut(List.of());

        assertThat(names(root)).containsExactly("checkpoint", "checkpoint.tmp");
        assertThat(Files.readString(root.resolve("checkpoint"))).isEqualTo("old");

        Files.move(root.resolve("checkpoint.tmp"), root.resolve("checkpoint"), StandardCopyOption.ATOMIC_MOVE);
        fsyncDirectory(root);
        fs.cut(List.of());

        assertThat(names(root)).containsExactly("checkpoint");
        assertThat(Files.readString(root.resolve("checkpoint"))).isEqualTo("new");
    }

    @Test
    void aTruncationIsKeptOnlyWithAFsyncAndBytesPastItComeBackAsZeros() throws Exception {
        write(root.resolve("segment"), "0123456789", true);
        try (FileChannel channel = FileChannel.open(root.resolve("segment"), StandardOpenOption.WRITE)) {
            channel.truncate(4);
            channel.write(ByteBuffer.wrap("xy".getBytes(UTF_8)), 8);
            channel.force(true);
            channel.truncate(2);
        }

        fs.cut(List.of());

        assertThat(Files.readAllBytes(root.resolve("segment")))
                .isEqualTo(new byte[] {'0', '1', '2', '3', 0, 0, 0, 0, 'x', 'y'});
    }

    @Test
    void aRemovalNotMadeDurableIsUndoneByACut() throws Exception {
        write(root.resolve("segment"), "records", true);
        Files.delete(root.resolve("segment"));
        assertThat(names(root)).isEmpty();

        fs.cut(List.of());

        assertThat(Files.readString(root.resolve("segment"))).isEqualTo("records");
    }

    @Test
    void theProcessesUsingTheMountDieWithTheCutAndWhatIsDurableSurvivesManyCuts() throws Exception {
        Process writer =
                new ProcessBuilder("sh", "-c", "while true; do echo x >> " + root.resolve("busy") + "; done").start();
        for (int cut = 1; cut <= 3; cut++) {
            write(root.resolve("cut-" + cut), "cut " + cut, true);
            fs.cut(List.of(writer.toHandle()));
            assertThat(writer.isAlive()).isFalse();
            assertThat(names(root)).contains("cut-" + cut);
        }
        assertThat(fs.cuts()).isEqualTo(3);
        for (int cut = 1; cut <= 3; cut++) {
            assertThat(Files.readString(root.resolve("cut-" + cut))).isEqualTo("cut " + cut);
        }
    }

    private static void write(Path file, String text, boolean fsync) throws IOException {
        try (FileChannel channel = FileChannel.open(
                file, StandardOpenOption.CREATE, StandardOpenOption.WRITE, StandardOpenOption.TRUNCATE_EXISTING)) {
            channel.write(ByteBuffer.wrap(text.getBytes(UTF_8)));
            if (fsync) {
                channel.force(true);
            }
        }
    }

    private static void append(Path file, String text, boolean fsync) throws IOException {
        try (FileChannel channel = FileChannel.open(file, StandardOpenOption.APPEND)) {
            channel.write(ByteBuffer.wrap(text.getBytes(UTF_8)));
            if (fsync) {
                channel.force(true);
            }
        }
    }

    private static void fsyncDirectory(Path directory) throws IOException {
        try (FileChannel channel = FileChannel.open(directory, StandardOpenOption.READ)) {
            channel.force(true);
        }
    }

    private static List<String> names(Path directory) throws IOException {
        try (Stream<Path> entries = Files.list(directory)) {
            return entries.map(entry -> entry.getFileName().toString()).sorted().toList();
        }
    }
}
