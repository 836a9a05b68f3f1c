package io.orderflow.ops.powercut;

import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * A directory that keeps, across a {@linkplain #cut power cut}, only what was made durable: {@code power_loss_fs.c}
 * mounted with FUSE over a backing directory. Bytes written and not fsynced, and names a directory fsync (or an fsync
 * of the file they name) never made durable, are gone after a cut, as on a disk that lost its power; everything else
 * is kept exactly. The C file's head comment holds the whole model.
 *
 * <p>Design. The file system is a C program, compiled by {@link #compile} with the machine's {@code gcc} against
 * Debian's {@code libfuse3-dev}, and run as a child process per mount: killing that process with SIGKILL is what drops
 * its volatile state, so a cut is one {@code kill -9} of it and of every process using the mount, at once, then a lazy
 * unmount ({@code fusermount3 -u -z}) and the same program started again on the same backing directory. No Java FUSE
 * binding is involved: the kernel interface is the real one, and the model is one C file that can be read in a sitting.
 *
 * <p>{@link #unavailable()} says why a machine cannot mount it (no {@code /dev/fuse}, no {@code fusermount3} from
 * {@code fuse3}, no headers from {@code libfuse3-dev}, no {@code gcc}); tests skip with that message. Not thread-safe.
 */
public final class PowerLossFileSystem implements AutoCloseable {
    private static final String SOURCE = "power_loss_fs.c";
    private static final Duration MOUNT_TIMEOUT = Duration.ofSeconds(10);
    private static final Duration EXIT_TIMEOUT = Duration.ofSeconds(30);

    private final Path program;
    private final Path backing;
    private final Path mountpoint;
    private final Path log;
    private Process daemon;
    private int cuts;

    private PowerLossFileSystem(Path program, Path backing, Path mountpoint, Path log) {
        this.program = program;
        this.backing = backing;
        this.mountpoint = mountpoint;
        this.log = log;
    }

    /** Why this machine cannot mount the file system, naming what to install; empty when it can. */
    public static Optional<String> unavailable() {
        List<String> missing = new ArrayList<>();
        if (!Files.exists(Path.of("/dev/fuse"))) {
            missing.add("/dev/fuse (the fuse kernel module)");
        }
        if (!onPath("fusermount3")) {
            missing.add("fusermount3 (Debian's fuse3)");
        }
        if (!Files.isRegularFile(Path.of("/usr/include/fuse3/fuse_lowlevel.h"))) {
            missing.add("the libfuse3 headers (Debian's libfuse3-dev)");
        }
        if (!onPath("gcc")) {
            missing.add("gcc");
        }
        return missing.isEmpty()
                ? Optional.empty()
                : Optional.of("the power-loss file system needs " + String.join(", ", missing)
                        + "; on Debian: apt-get install fuse3 libfuse3-dev gcc");
    }

    /**
     * Compiles the file system into {@code directory} and returns the program; a program compiled there before from
     * the same source is reused.
     */
    public static Path compile(Path directory) throws IOException, InterruptedException {
        Files.createDirectories(directory);
        byte[] source;
        try (InputStream in = PowerLossFileSystem.class.getResourceAsStream(SOURCE)) {
            if (in == null) {
                throw new IllegalStateException(SOURCE + " is not on the class path");
            }
            source = in.readAllBytes();
        }
        Path copy = directory.resolve(SOURCE);
        Path program = directory.resolve("power-loss-fs");
        if (Files.isExecutable(program)
                && Files.exists(copy)
                && java.util.Arrays.equals(Files.readAllBytes(copy), source)) {
            return program;
        }
        Files.write(copy, source);
        Path output = directory.resolve("gcc.log");
        Process gcc = new ProcessBuilder(
                        "gcc",
                        "-O2",
                        "-Wall",
                        "-Wextra",
                        "-Werror",
                        "-I/usr/include/fuse3",
                        "-o",
                        program.toString(),
                        copy.toString(),
                        "-lfuse3",
                        "-lpthread")
                .redirectErrorStream(true)
                .redirectOutput(output.toFile())
                .start();
        if (gcc.waitFor() != 0) {
            throw new IOException("gcc could not compile " + SOURCE + ": " + Files.readString(output));
        }
        return program;
    }

    /**
     * Mounts the file system of {@code backing} (created if missing; what an earlier mount made durable is there again)
     * on {@code mountpoint}, its program's messages going to {@code log}. Returns once the mount answers.
     */
    public static PowerLossFileSystem mount(Path program, Path backing, Path mountpoint, Path log)
            throws IOException, InterruptedException, TimeoutException {
        Files.createDirectories(backing);
        Files.createDirectories(mountpoint);
        PowerLossFileSystem fs = new PowerLossFileSystem(
                program, backing.toAbsolutePath(), mountpoint.toAbsolutePath(), log.toAbsolutePath());
        fs.start();
        return fs;
    }

    /** Where the file system is mounted. */
    public Path root() {
        return mountpoint;
    }

    /** The file system's process, which a cut kills with the others. */
    public ProcessHandle process() {
        return daemon.toHandle();
    }

    /** How many cuts this file system has been through. */
    public int cuts() {
        return cuts;
    }

    /**
     * A power cut: {@code victims} and the file system's own process killed with one SIGKILL each from one {@code
     * kill} command, waited for until every one is gone, the mount lazily unmounted, and the file system mounted again
     * from what was durable. Processes still using the mount afterwards see it anew.
     */
    public void cut(Collection<ProcessHandle> victims) throws IOException, InterruptedException, TimeoutException {
        List<ProcessHandle> all = new ArrayList<>(victims);
        all.add(daemon.toHandle());
        List<String> kill = new ArrayList<>(List.of("kill", "-9"));
        all.stream().filter(ProcessHandle::isAlive).forEach(handle -> kill.add(Long.toString(handle.pid())));
        Process killing = new ProcessBuilder(kill).redirectErrorStream(true).start();
        killing.getInputStream().readAllBytes(); // a process that died meanwhile is "no such process": fine
        killing.waitFor();
        for (ProcessHandle handle : all) {
            try {
                handle.onExit().get(EXIT_TIMEOUT.toSeconds(), TimeUnit.SECONDS);
            } catch (java.util.concurrent.ExecutionException e) {
                throw new IllegalStateException(e);
            }
        }
        unmount();
        cuts++;
        start();
    }

    /** Unmounts, keeping what was durable in the backing directory; what was not is lost as in a cut. */
    @Override
    public void close() throws IOException, InterruptedException {
        if (daemon != null && daemon.isAlive()) {
            daemon.destroyForcibly().waitFor(EXIT_TIMEOUT.toSeconds(), TimeUnit.SECONDS);
        }
        unmount();
    }

    private void start() throws IOException, InterruptedException, TimeoutException {
        daemon = new ProcessBuilder(
                        program.toString(),
                        backing.toString(),
                        mountpoint.toString(),
                        "-o",
                        "default_permissions,allow_other,fsname=power-loss,subtype=power-loss")
                .redirectErrorStream(true)
                .redirectOutput(ProcessBuilder.Redirect.appendTo(log.toFile()))
                .start();
        long deadline = System.nanoTime() + MOUNT_TIMEOUT.toNanos();
        while (!mounted()) {
            if (!daemon.isAlive()) {
                throw new IOException("power-loss-fs exited with " + daemon.exitValue() + ": " + Files.readString(log));
            }
            if (System.nanoTime() > deadline) {
                throw new TimeoutException("power-loss-fs did not mount " + mountpoint + " within " + MOUNT_TIMEOUT);
            }
            daemon.waitFor(20, TimeUnit.MILLISECONDS);
        }
    }

    private boolean mounted() throws IOException {
        String target = " " + mountpoint + " ";
        return Files.readAllLines(Path.of("/proc/self/mountinfo")).stream()
                .anyMatch(line -> line.contains(target) && line.contains("fuse.power-loss"));
    }

    private void unmount() throws IOException, InterruptedException {
        if (!mounted()) {
            return;
        }
        Process fusermount = new ProcessBuilder("fusermount3", "-u", "-z", mountpoint.toString())
                .redirectErrorStream(true)
                .start();
        String output = new String(fusermount.getInputStream().readAllBytes());
        if (fusermount.waitFor() != 0) {
            throw new IOException("fusermount3 -u -z " + mountpoint + ": " + output);
        }
    }

    private static boolean onPath(String command) {
        String path = System.getenv().getOrDefault("PATH", "/usr/bin:/bin");
        for (String dir : path.split(":")) {
            if (!dir.isEmpty() && Files.isExecutable(Path.of(dir, command))) {
                return true;
            }
        }
        return false;
    }
}
