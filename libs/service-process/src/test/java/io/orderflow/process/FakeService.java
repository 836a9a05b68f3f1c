package io.orderflow.process;

import com.sun.net.httpserver.HttpServer;
import java.net.InetSocketAddress;

/**
 * A stand-in for a Quarkus service, packaged into a jar by {@link ServiceProcessTest}: it serves
 * {@code /q/health/ready} on {@code quarkus.http.host}:{@code quarkus.http.port}, prints a line, and with
 * {@code -Dfail=true} exits with 3 before listening.
 */
public final class FakeService {
    private FakeService() {}

    public static void main(String[] args) throws Exception {
        System.out.println("fake service starting, greeting=" + System.getProperty("greeting"));
        if (Boolean.getBoolean("fail")) {
            System.out.println("fake service: told to fail");
            System.exit(3);
        }
        HttpServer http = HttpServer.create(
                new InetSocketAddress(System.getProperty("quarkus.http.host"), Integer.getInteger("quarkus.http.port")),
                8);
        http.createContext("/q/health/ready", exchange -> {
            exchange.sendResponseHeaders(200, -1);
            exchange.close();
        });
        http.start();
        System.out.println("fake service ready");
    }
}
