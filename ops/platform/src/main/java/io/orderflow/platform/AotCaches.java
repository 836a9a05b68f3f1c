package io.orderflow.platform;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.BasicFileAttributes;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import java.util.List;
import java.util.stream.Stream;

/**
 * The JDK's ahead-of-time caches (JEP 483, 514 and 515: classes loaded and linked, and method profiles) for the
 * services the launcher starts, so that a service is fast from its first request instead of after its JIT has warmed
 * up. One cache per service instance and build of its application, in {@code <applications>/aot/}:
 *
 * <ul>
 *   <li>none yet: the service runs with {@code -XX:AOTCacheOutput}, a training run; the JVM writes the cache when the
 *       service stops normally (not after SIGKILL), from what it loaded and ran until then;
 *   <li>one for this build: {@code -XX:AOTCache}, and the JVM starts from it (a cache it cannot use, it ignores with a
 *       warning in the service's log, as {@code -XX:AOTMode=auto} does).
 * </ul>
 *
 * A build is told by the application's files (names, sizes and modification times): a rebuilt application gets a new
 * cache and the old ones are deleted. Caches need a JDK 25 or newer; on an older one this gives no options.
 */
final class AotCaches {

    private final Path directory;
    private final boolean supported;

    AotCaches(Path directory, int javaFeatureVersion) {
        this.directory = directory;
        this.supported = javaFeatureVersion >= 25;
    }

    /** The caches of the applications in {@code applications}, for the JDK this launcher runs on. */
    static AotCaches beside(Path applications) {
        return new AotCaches(applications.resolve("aot"), Runtime.version().feature());
    }

    /** The JVM options that make {@code instance} of the application in {@code application} use or train its cache. */
    List<String> jvmOptions(String instance, Path application) {
        if (!supported) {
            return List.of();
        }
        String prefix = instance + "-";
        Path cache = directory.resolve(prefix + fingerprint(application) + ".aot");
        try {
            Files.createDirectories(directory);
            if (Files.isRegularFile(cache)) {
                return List.of("-XX:AOTCache=" + cache.toAbsolutePath());
            }
            try (Stream<Path> caches = Files.list(directory)) {
                for (Path stale : caches.filter(p -> isCacheOf(p, prefix)).toList()) {
                    Files.deleteIfExists(stale);
                }
            }
        } catch (IOException e) {
            throw new UncheckedIOException("Cannot prepare the AOT cache directory " + directory, e);
        }
        return List.of("-XX:AOTCacheOutput=" + cache.toAbsolutePath());
    }

    /** Whether {@code file} is a cache of the instance whose caches start with {@code prefix} (and not of another). */
    private static boolean isCacheOf(Path file, String prefix) {
        String name = file.getFileName().toString();
        return name.startsWith(prefix) && name.substring(prefix.length()).matches("[0-9a-f]{16}\\.aot");
    }

    /** 16 hex digits from the names, sizes and modification times of every file of the application. */
    static String fingerprint(Path application) {
        try (Stream<Path> files = Files.walk(application)) {
            MessageDigest digest = MessageDigest.getInstance("SHA-256");
            for (Path file : files.filter(Files::isRegularFile).sorted().toList()) {
                BasicFileAttributes attributes = Files.readAttributes(file, BasicFileAttributes.class);
                digest.update((application.relativize(file) + "|" + attributes.size() + "|"
                                + attributes.lastModifiedTime().toMillis() + "\n")
                        .getBytes(java.nio.charset.StandardCharsets.UTF_8));
            }
            return HexFormat.of().formatHex(digest.digest(), 0, 8);
        } catch (IOException e) {
            throw new UncheckedIOException("Cannot read the application " + application, e);
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("every JDK has SHA-256", e);
        }
    }
}
