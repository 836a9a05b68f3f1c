package io.orderflow.platform;

import java.io.IOException;
import java.io.InputStream;
import java.io.PrintStream;
import java.io.RandomAccessFile;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;

/**
 * {@code ./run-platform status}, {@code stop}, {@code logs}, {@code kill}, {@code stop SERVICE} and {@code start}:
 * what a user asks of a platform started in another terminal, answered from the launcher's {@link PlatformState}.
 *
 * <ul>
 *   <li>{@code status}: the launcher and each service, its process (running or exited) and its readiness
 *       ({@code /q/health/ready}). Exit code 0 when every service runs and is ready, 1 when one is not, 3 when no
 *       platform runs here.
 *   <li>{@code stop}: SIGTERM to the launcher, which stops everything, and waits for it. After a {@code kill -9} of
 *       the launcher its services are orphans: {@code stop} sends them SIGTERM itself. Exit code 0.
 *   <li>{@code kill SERVICE}: SIGKILL to the service, as a crash would; {@code stop SERVICE}: SIGTERM, a clean
 *       shutdown (a consumer commits and leaves its group at once: what {@code ops/bin/replay} needs); {@code start
 *       SERVICE}: starts it again with its settings and port once it has ended, returning when it is ready. All go
 *       through the launcher's {@link PlatformControl} port. Exit code 0 when done, 1 when refused (a start of a
 *       running service, a stop of the broker), 2 for an unknown service, 3 when no platform runs here.
 *   <li>{@code logs SERVICE}: the last 100 lines of the service's log, then every new line until Ctrl-C. Exit code 2
 *       for a name that is not one of the platform's services.
 * </ul>
 *
 * <p>{@code --postgres-dir DIR} finds a platform launched with the same option; {@link PlatformCommandLine} declares
 * the commands and their arguments. Not thread-safe (one command).
 */
final class PlatformCommands {

    private static final Duration STOP_WAIT = Duration.ofSeconds(90);
    private static final HttpClient HTTP =
            HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build();

    private final Path stateFile;
    private final Path logs;
    private final PrintStream out;
    private final PrintStream err;

    PlatformCommands(Path postgresDirectory, PrintStream out, PrintStream err) {
        this.stateFile = PlatformState.file(postgresDirectory);
        this.logs = PlatformState.logs(postgresDirectory);
        this.out = out;
        this.err = err;
    }

    int status() {
        Optional<PlatformState> read = PlatformState.read(stateFile);
        if (read.isEmpty() || !read.get().launcherAlive()) {
            out.println("orderflow platform is not running here (no live launcher in " + stateFile + ").");
            read.ifPresent(state -> state.processes().stream()
                    .filter(service -> alive(service.pid()))
                    .forEach(service -> out.println("  left running: " + service.name() + " (pid " + service.pid()
                            + "); ./run-platform stop stops it")));
            return 3;
        }
        PlatformState state = read.get();
        if (state.services().isEmpty()) {
            out.println("orderflow platform is starting (launcher pid " + state.launcherPid() + ").");
            return 1;
        }
        out.println("orderflow platform is running (launcher pid " + state.launcherPid() + ").");
        if (state.broker() != null) {
            out.println("  broker: " + state.broker().bootstrapServers() + " (bootstrap.servers)"
                    + (state.broker().ours() ? ", metrics " + state.broker().metrics() : ", a Kafka cluster"));
            if (state.broker().restarts() > 0) {
                out.println("  broker: died by itself and was started again "
                        + state.broker().restarts()
                        + (state.broker().restarts() == 1 ? " time" : " times") + " (last exit code "
                        + state.broker().lastExitCode() + "); its log says why");
            }
        }
        out.printf("  %-24s %-8s %-8s %-10s %-26s %s%n", "SERVICE", "PID", "PROCESS", "READY", "URL", "LOG");
        boolean allWell = true;
        for (PlatformState.Service service : state.processes()) {
            boolean running = alive(service.pid());
            String ready = !running
                    ? "-"
                    : readiness(service.url()
                            .resolve(service.name().equals(BrokerProcess.NAME) ? "/health" : "/q/health/ready"));
            allWell &= running && ready.equals("ready");
            out.printf(
                    "  %-24s %-8d %-8s %-10s %-26s %s%n",
                    service.name(), service.pid(), running ? "running" : "exited", ready, service.url(), service.log());
        }
        return allWell ? 0 : 1;
    }

    int stop() throws InterruptedException {
        Optional<PlatformState> read = PlatformState.read(stateFile);
        if (read.isEmpty()) {
            out.println("orderflow platform is not running here.");
            return 0;
        }
        PlatformState state = read.get();
        Optional<ProcessHandle> launcher = ProcessHandle.of(state.launcherPid()).filter(ProcessHandle::isAlive);
        if (launcher.isPresent()) {
            out.println("Stopping the orderflow platform (launcher pid " + state.launcherPid() + ")...");
            launcher.get().destroy();
            try {
                launcher.get().onExit().get(STOP_WAIT.toSeconds(), TimeUnit.SECONDS);
            } catch (java.util.concurrent.ExecutionException | java.util.concurrent.TimeoutException e) {
                err.println("The launcher did not stop within " + STOP_WAIT.toSeconds() + " s; killing it.");
                launcher.get().destroyForcibly();
            }
        }
        // Whatever the launcher could not stop (it was killed with -9, or had to be killed above).
        for (PlatformState.Service service : state.processes()) {
            Optional<ProcessHandle> orphan = ProcessHandle.of(service.pid())
                    .filter(ProcessHandle::isAlive)
                    .filter(handle -> handle.info()
                            .commandLine()
                            .map(line -> line.contains("quarkus-run.jar") || line.contains(BrokerProcess.MAIN_CLASS))
                            .orElse(false));
            if (orphan.isPresent()) {
                out.println("Stopping " + service.name() + " (pid " + service.pid() + "), left by its launcher...");
                orphan.get().destroy();
                try {
                    orphan.get().onExit().get(30, TimeUnit.SECONDS);
                } catch (java.util.concurrent.ExecutionException | java.util.concurrent.TimeoutException e) {
                    orphan.get().destroyForcibly();
                }
            }
        }
        PlatformState.delete(stateFile);
        out.println("orderflow platform stopped.");
        return 0;
    }

    /** {@code kill}, {@code stop} or {@code start} ({@code action}) of {@code service}, through the launcher's control port. */
    int control(String action, String service) throws InterruptedException {
        Optional<PlatformState> read = PlatformState.read(stateFile);
        if (read.isEmpty() || !read.get().launcherAlive() || read.get().control() == null) {
            out.println("orderflow platform is not running here (or still starting).");
            return 3;
        }
        try {
            HttpResponse<String> answer = HTTP.send(
                    HttpRequest.newBuilder(read.get().control().resolve("/services/" + service + "/" + action))
                            .timeout(Duration.ofMinutes(3))
                            .POST(HttpRequest.BodyPublishers.noBody())
                            .build(),
                    HttpResponse.BodyHandlers.ofString());
            (answer.statusCode() == 200 ? out : err).print(answer.body());
            return switch (answer.statusCode()) {
                case 200 -> 0;
                case 404 -> 2;
                default -> 1;
            };
        } catch (IOException e) {
            err.println("The launcher's control port did not answer: " + e.getMessage());
            return 1;
        }
    }

    int logs(String service) throws InterruptedException {
        Path log = logs.resolve(service + ".log");
        if (!Files.isRegularFile(log)) {
            err.println("No log for '" + service + "' in " + logs + "; the services are "
                    + String.join(", ", serviceNames()) + ".");
            return 2;
        }
        try (RandomAccessFile file = new RandomAccessFile(log.toFile(), "r")) {
            List<String> lines = Files.readAllLines(log, StandardCharsets.UTF_8);
            lines.subList(Math.max(0, lines.size() - 100), lines.size()).forEach(out::println);
            out.flush();
            long position = file.length();
            byte[] buffer = new byte[8192];
            while (true) {
                long length = file.length();
                if (length < position) {
                    position = 0; // the log was truncated: a new run of the service
                }
                if (length > position) {
                    file.seek(position);
                    int read = file.read(buffer, 0, (int) Math.min(buffer.length, length - position));
                    out.write(buffer, 0, read);
                    out.flush();
                    position += read;
                } else {
                    Thread.sleep(200); // following the file, as tail -F does
                }
            }
        } catch (IOException e) {
            err.println("Cannot read " + log + ": " + e.getMessage());
            return 1;
        }
    }

    private List<String> serviceNames() {
        try (var files = Files.list(logs)) {
            return files.map(path -> path.getFileName().toString())
                    .filter(name -> name.endsWith(".log"))
                    .map(name -> name.substring(0, name.length() - ".log".length()))
                    .sorted()
                    .toList();
        } catch (IOException e) {
            return List.of();
        }
    }

    private static boolean alive(long pid) {
        return ProcessHandle.of(pid).map(ProcessHandle::isAlive).orElse(false);
    }

    /** Whether {@code health} answers 200. */
    private static String readiness(URI health) {
        try {
            HttpResponse<InputStream> response = HTTP.send(
                    HttpRequest.newBuilder(health)
                            .timeout(Duration.ofSeconds(3))
                            .build(),
                    HttpResponse.BodyHandlers.ofInputStream());
            response.body().close();
            return response.statusCode() == 200 ? "ready" : "not ready";
        } catch (IOException e) {
            return "no answer";
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return "no answer";
        }
    }
}
