package io.orderflow.ops.backup;

import java.io.IOException;
import java.nio.file.FileVisitResult;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.SimpleFileVisitor;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.BasicFileAttributes;
import java.util.function.Predicate;

/**
 * Copies a directory tree that a running server may be changing: a file deleted between the listing and its copy is
 * left out (the server's own recovery knows it is gone), and a file's permissions travel with it (secrets stay owner
 * only). Which directories to enter and which files to take is the caller's.
 */
final class TreeCopy {
    private TreeCopy() {}

    /** Copies everything under {@code from} to {@code to}; the bytes copied. */
    static long copy(Path from, Path to) throws IOException {
        return copy(from, to, directory -> true, file -> true);
    }

    /**
     * Copies the files under {@code from} that {@code take} accepts to the same places under {@code to}; a directory
     * that {@code enter} refuses is made empty. The bytes copied.
     */
    static long copy(Path from, Path to, Predicate<Path> enter, Predicate<Path> take) throws IOException {
        long[] bytes = {0};
        Files.walkFileTree(from, new SimpleFileVisitor<>() {
            @Override
            public FileVisitResult preVisitDirectory(Path dir, BasicFileAttributes attributes) throws IOException {
                Files.createDirectories(to.resolve(from.relativize(dir).toString()));
                return dir.equals(from) || enter.test(dir) ? FileVisitResult.CONTINUE : FileVisitResult.SKIP_SUBTREE;
            }

            @Override
            public FileVisitResult visitFile(Path file, BasicFileAttributes attributes) throws IOException {
                if (take.test(file)) {
                    Path copy = to.resolve(from.relativize(file).toString());
                    try {
                        Files.copy(file, copy, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.COPY_ATTRIBUTES);
                        bytes[0] += Files.size(copy);
                    } catch (NoSuchFileException deletedMeanwhile) {
                        // gone since the listing
                    }
                }
                return FileVisitResult.CONTINUE;
            }

            @Override
            public FileVisitResult visitFileFailed(Path file, IOException e) throws IOException {
                if (e instanceof NoSuchFileException) {
                    return FileVisitResult.CONTINUE; // gone since the listing
                }
                throw e;
            }
        });
        return bytes[0];
    }
}
