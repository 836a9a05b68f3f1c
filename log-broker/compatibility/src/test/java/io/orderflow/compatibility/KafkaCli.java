package io.orderflow.compatibility;

import io.orderflow.process.ChildProcesses;
import java.io.IOException;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;

/**
 * Runs one of Apache Kafka's command-line tools as a child JVM, the way {@code bin/kafka-*.sh} does: the tool's
 * main class on this module's test classpath (kafka-tools 4.4.0 and what it brings), its stdin fed from a
 * string, its stdout and stderr captured, under a timeout.
 *
 * <p>A child process rather than a call to {@code main}: the tools call {@code Exit.exit}, print to
 * {@code System.out} and keep static state, and a real process is what an operator runs.
 */
public final class KafkaCli {
    private static final Duration DEFAULT_TIMEOUT = Duration.ofSeconds(60);

    /** The tools this harness runs, by their script name and main class in kafka-tools 4.4.0. */
    public enum Tool {
        TOPICS("kafka-topics", "org.apache.kafka.tools.TopicCommand"),
        CONSOLE_PRODUCER("kafka-console-producer", "org.apache.kafka.tools.ConsoleProducer"),
        CONSOLE_CONSUMER("kafka-console-consumer", "org.apache.kafka.tools.consumer.ConsoleConsumer"),
        CONSUMER_GROUPS("kafka-consumer-groups", "org.apache.kafka.tools.consumer.group.ConsumerGroupCommand"),
        ACLS("kafka-acls", "org.apache.kafka.tools.AclCommand"),
        CONFIGS("kafka-configs", "org.apache.kafka.tools.ConfigCommand"),
        TRANSACTIONS("kafka-transactions", "org.apache.kafka.tools.TransactionsCommand");

        final String script;
        final String mainClass;

        Tool(String script, String mainClass) {
            this.script = script;
            this.mainClass = mainClass;
        }
    }

    /** What a tool printed and how it exited; {@link #command()} is the equivalent {@code bin/} command line. */
    public record Run(String command, int exitCode, String stdout, String stderr) {
        /** This run, or an {@link AssertionError} showing everything the tool printed if it exited non-zero. */
        public Run succeeded() {
            if (exitCode != 0) {
                throw new AssertionError(transcript());
            }
            return this;
        }

        public List<String> stdoutLines() {
            return stdout.lines().toList();
        }

        /** The command, its exit code and everything it printed: the message for a failed assertion. */
        public String transcript() {
            String outcome = exitCode < 0 ? "did not finish" : "exited with code " + exitCode;
            return command + " " + outcome + "\n--- stdout ---\n" + stdout + "\n--- stderr ---\n" + stderr;
        }
    }

    private KafkaCli() {}

    public static Run run(Tool tool, String... args) {
        return run(tool, "", DEFAULT_TIMEOUT, args);
    }

    /** Runs {@code tool} against {@code bootstrapServers}: {@code --bootstrap-server} then {@code args}. */
    public static Run runAgainst(String bootstrapServers, Tool tool, String... args) {
        String[] withServer = new String[args.length + 2];
        withServer[0] = "--bootstrap-server";
        withServer[1] = bootstrapServers;
        System.arraycopy(args, 0, withServer, 2, args.length);
        return run(tool, withServer);
    }

    /** Runs {@code tool} with {@code args}, writing {@code stdin} to it and then closing its stdin. */
    public static Run run(Tool tool, String stdin, Duration timeout, String... args) {
        String classpath = System.getProperty("java.class.path");
        if (!classpath.contains("kafka-tools")) {
            throw new IllegalStateException("kafka-tools is not on java.class.path: " + classpath);
        }
        List<String> command = new ArrayList<>(List.of(
                ChildProcesses.java(),
                "-Xshare:auto",
                // The tools are short-lived: start fast and stay small rather than optimise.
                "-XX:TieredStopAtLevel=1",
                "-XX:+UseSerialGC",
                "-Xmx256m",
                "-Dorg.slf4j.simpleLogger.defaultLogLevel=warn",
                "-cp",
                classpath,
                tool.mainClass));
        command.addAll(List.of(args));
        String shown = "bin/" + tool.script + ".sh " + String.join(" ", args);
        Path out = null;
        Path err = null;
        try {
            out = Files.createTempFile(tool.script, ".out");
            err = Files.createTempFile(tool.script, ".err");
            Process process = new ProcessBuilder(command)
                    .redirectOutput(out.toFile())
                    .redirectError(err.toFile())
                    .start();
            try (OutputStream in = process.getOutputStream()) {
                in.write(stdin.getBytes(StandardCharsets.UTF_8));
            } catch (IOException brokenPipe) {
                // the tool exited before reading all its input; what it printed says why
            }
            boolean exited = process.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS);
            String threads = "";
            if (!exited) {
                threads = threadDump(process);
                process.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
            }
            Run run = new Run(shown, exited ? process.exitValue() : -1, read(out), read(err));
            if (!exited) {
                throw new AssertionError("Timed out after " + timeout + ": " + run.transcript()
                        + "\n--- its threads when it timed out ---\n" + threads);
            }
            return run;
        } catch (IOException e) {
            throw new UncheckedIOException("Cannot run " + shown, e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("Interrupted while running " + shown, e);
        } finally {
            delete(out);
            delete(err);
        }
    }

    /** Runs the tools side by side (each is a JVM start of seconds) and returns their runs in the order given. */
    @SafeVarargs
    public static List<Run> concurrently(Supplier<Run>... tools) {
        try (ExecutorService pool = Executors.newFixedThreadPool(tools.length)) {
            List<CompletableFuture<Run>> started = new ArrayList<>();
            for (Supplier<Run> tool : tools) {
                started.add(CompletableFuture.supplyAsync(tool, pool));
            }
            return started.stream().map(CompletableFuture::join).toList();
        }
    }

    /** {@code jcmd PID Thread.print} of a tool that hangs: what it waits for. */
    private static String threadDump(Process process) {
        Path jcmd = Path.of(ChildProcesses.java()).resolveSibling("jcmd");
        try {
            Process dump = new ProcessBuilder(jcmd.toString(), String.valueOf(process.pid()), "Thread.print")
                    .redirectErrorStream(true)
                    .start();
            String printed = new String(dump.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            return dump.waitFor(20, TimeUnit.SECONDS) ? printed : "(jcmd did not finish)";
        } catch (IOException e) {
            return "(no thread dump: " + e.getMessage() + ")";
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return "(interrupted)";
        }
    }

    private static String read(Path file) throws IOException {
        return Files.readString(file, StandardCharsets.UTF_8);
    }

    private static void delete(Path file) {
        if (file != null) {
            try {
                Files.deleteIfExists(file);
            } catch (IOException ignored) {
                // a temporary file left behind is harmless
            }
        }
    }
}
