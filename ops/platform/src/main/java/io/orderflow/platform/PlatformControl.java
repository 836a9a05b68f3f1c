package io.orderflow.platform;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import io.orderflow.postgres.LocalPostgres;
import io.orderflow.postgres.PostgresUnavailableException;
import io.orderflow.process.ServiceProcess;
import io.orderflow.process.ServiceStartException;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.util.function.Consumer;

/**
 * The running launcher's control port, on loopback only, for {@code ./run-platform kill SERVICE}, {@code stop SERVICE}
 * and {@code start SERVICE}, for the drills and for {@code ops/bin/replay} (a service is one of the platform's
 * instances or {@code log-broker}): {@code POST /services/{instance}/kill} ends the service's process with SIGKILL, as
 * a crash would; {@code POST /services/{instance}/stop} ends it with SIGTERM, a clean shutdown (services only);
 * {@code POST /services/{instance}/start} starts it again with its settings and port once it has ended, answering
 * when it is ready; {@code POST /services/log-broker/crash} ends the broker with SIGKILL without the launcher taking
 * note, so that it is handled as a broker that died by itself ({@link BrokerSupervisor} starts it again) — the
 * broker-failure drill's {@code --dies-by-itself}. {@code postgres} is the platform's embedded PostgreSQL, killed and
 * started the same way (its postmaster and every process of it; not a configured server). Answers are one line of text: 200, 404 for an unknown service, 409 for a start of a running one
 * or a stop of the broker, 500 when a start fails (with the end of its log). Its address is in {@link
 * PlatformState}.
 *
 * <p>Thread-safe: the JDK's server runs one request at a time on its thread; {@link LocalPlatform} serialises
 * kills, stops and starts.
 */
final class PlatformControl implements AutoCloseable {

    /** The platform's own PostgreSQL, as the control port names it. */
    static final String POSTGRES = "postgres";

    private static final String USAGE =
            "POST /services/{service}/kill, /services/{service}/stop, /services/{service}/start or"
                    + " /services/log-broker/crash; /services/postgres/kill or /start";

    private final HttpServer server;

    private PlatformControl(HttpServer server) {
        this.server = server;
    }

    /**
     * Serves {@code platform}; {@code started} hears of every service process a start made, {@code brokerStarted} of
     * every broker start.
     */
    static PlatformControl start(LocalPlatform platform, Consumer<ServiceProcess> started, Runnable brokerStarted) {
        HttpServer server;
        try {
            server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
        } catch (IOException e) {
            throw new UncheckedIOException("Cannot open the launcher's control port", e);
        }
        server.createContext("/services/", exchange -> handle(platform, started, brokerStarted, exchange));
        server.start();
        return new PlatformControl(server);
    }

    URI uri() {
        return URI.create("http://127.0.0.1:" + server.getAddress().getPort());
    }

    private static void handle(
            LocalPlatform platform, Consumer<ServiceProcess> started, Runnable brokerStarted, HttpExchange exchange)
            throws IOException {
        try (exchange) {
            String[] path = exchange.getRequestURI().getPath().split("/"); // "", "services", instance, action
            if (!exchange.getRequestMethod().equals("POST") || path.length != 4) {
                answer(exchange, 404, USAGE);
                return;
            }
            String instance = path[2];
            if (instance.equals(POSTGRES)) {
                database(platform.postgres(), path[3], exchange);
                return;
            }
            boolean broker = instance.equals(BrokerProcess.NAME);
            if (!broker && !platform.instances().contains(instance)) {
                answer(
                        exchange,
                        404,
                        "no service '" + instance + "'; the services are " + BrokerProcess.NAME + ", " + POSTGRES + ", "
                                + String.join(", ", platform.instances()));
                return;
            }
            switch (path[3]) {
                case "kill" -> {
                    if (broker && platform.broker().isEmpty()) {
                        answer(
                                exchange,
                                409,
                                "the platform runs on the Kafka cluster at " + platform.bootstrapServers()
                                        + ", not on our broker");
                        return;
                    }
                    long pid = broker
                            ? platform.broker().orElseThrow().pid()
                            : platform.service(instance).pid();
                    platform.kill(instance);
                    answer(exchange, 200, "killed " + instance + " (pid " + pid + ") with SIGKILL");
                }
                case "crash" -> {
                    if (!broker || platform.broker().isEmpty()) {
                        answer(
                                exchange,
                                409,
                                "only our broker is started again by the launcher when it dies; kill and start "
                                        + instance + " instead");
                        return;
                    }
                    long pid = platform.broker().orElseThrow().pid();
                    ProcessHandle.of(pid).ifPresent(ProcessHandle::destroyForcibly);
                    answer(
                            exchange,
                            200,
                            "crashed " + instance + " (pid " + pid + ") with SIGKILL; the launcher starts it again by"
                                    + " itself");
                }
                case "stop" -> {
                    if (broker) {
                        answer(
                                exchange,
                                409,
                                "the broker stops with the platform (./run-platform stop); kill " + BrokerProcess.NAME
                                        + " crashes it");
                        return;
                    }
                    ServiceProcess process = platform.service(instance);
                    boolean running = process.isAlive();
                    platform.stop(instance);
                    answer(
                            exchange,
                            200,
                            running
                                    ? "stopped " + instance + " (pid " + process.pid() + ") with SIGTERM"
                                    : instance + " (pid " + process.pid() + ") had already exited");
                }
                case "start" -> {
                    try {
                        if (broker) {
                            BrokerProcess process = platform.startBroker();
                            brokerStarted.run();
                            answer(
                                    exchange,
                                    200,
                                    "started " + instance + " (pid " + process.pid() + ") on "
                                            + process.bootstrapServers());
                            return;
                        }
                        ServiceProcess process = platform.start(instance);
                        started.accept(process);
                        answer(
                                exchange,
                                200,
                                "started " + instance + " (pid " + process.pid() + ") on " + process.baseUri());
                    } catch (IllegalStateException e) {
                        answer(exchange, 409, e.getMessage());
                    } catch (ServiceStartException e) {
                        answer(exchange, 500, e.getMessage());
                    }
                }
                default -> answer(exchange, 404, USAGE);
            }
        }
    }

    /**
     * {@code kill} and {@code start} of the platform's own PostgreSQL (the embedded cluster): SIGKILL to the postmaster
     * and every process of it, and a start on the same port and data, whose crash recovery replays the WAL. The
     * services' connections break meanwhile and are made again by their pools.
     */
    private static void database(LocalPostgres postgres, String action, HttpExchange exchange) throws IOException {
        if (!postgres.isEmbedded()) {
            answer(exchange, 409, "the platform uses the PostgreSQL at " + postgres.adminJdbcUrl() + ", not its own");
            return;
        }
        try {
            switch (action) {
                case "kill" -> {
                    long pid = postgres.kill();
                    answer(exchange, 200, "killed " + POSTGRES + " (postmaster pid " + pid + ") with SIGKILL");
                }
                case "start" -> {
                    postgres.startAgain();
                    answer(exchange, 200, "started " + POSTGRES + " again on " + postgres.adminJdbcUrl());
                }
                default -> answer(exchange, 409, "PostgreSQL is only killed and started: kill " + POSTGRES);
            }
        } catch (IllegalStateException e) {
            answer(exchange, 409, e.getMessage());
        } catch (PostgresUnavailableException e) {
            answer(exchange, 500, e.getMessage());
        }
    }

    private static void answer(HttpExchange exchange, int status, String text) throws IOException {
        byte[] body = (text + "\n").getBytes(StandardCharsets.UTF_8);
        exchange.getResponseHeaders().set("Content-Type", "text/plain; charset=utf-8");
        exchange.sendResponseHeaders(status, body.length);
        exchange.getResponseBody().write(body);
    }

    @Override
    public void close() {
        server.stop(0);
    }
}
