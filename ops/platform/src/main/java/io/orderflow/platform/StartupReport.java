package io.orderflow.platform;

import io.orderflow.postgres.LocalPostgres;
import io.orderflow.postgres.PostgresDatabase;
import io.orderflow.process.ServiceProcess;

/** What the launcher tells the developer once everything is up: what runs where, and what does not exist yet. */
final class StartupReport {

    private StartupReport() {}

    static String render(LocalPlatform platform) {
        StringBuilder report = new StringBuilder();
        report.append("orderflow platform (local, no Docker)\n\n");
        renderBroker(report, platform);
        report.append('\n');
        renderPostgres(report, platform);
        renderServices(report, platform);
        report.append("\nSecrets  ")
                .append(platform.secretsDirectory())
                .append("  (owner-only: certificates, passwords, clients/PRINCIPAL.properties; admin-token is the"
                        + " bearer token of PUT /inventory/{sku} and the drill switches)\n");
        return report.toString();
    }

    private static void renderBroker(StringBuilder report, LocalPlatform platform) {
        platform.broker()
                .ifPresentOrElse(
                        broker -> {
                            report.append("Log broker (Kafka protocol)  pid ")
                                    .append(broker.pid())
                                    .append(", started by this launcher, stopped with it\n");
                            row(
                                    report,
                                    "bootstrap",
                                    platform.bootstrapServers() + "  (bootstrap.servers for any Kafka client)");
                            row(
                                    report,
                                    "security",
                                    platform.secured()
                                            ? "SASL_SSL: TLS, a SCRAM-SHA-512 login and ACLs per part; a client's"
                                                    + " settings: --command-config "
                                                    + platform.secretsDirectory()
                                                            .resolve("clients")
                                                            .resolve("admin.properties")
                                            : "PLAINTEXT: anyone who reaches the port may do anything (--security"
                                                    + " plaintext)");
                            row(report, "metrics", broker.http("/metrics") + "  (Prometheus)");
                            row(report, "health", broker.http("/health").toString());
                            row(report, "data", broker.dataDirectory().toAbsolutePath() + "  (kept across restarts)");
                            row(report, "log", broker.logFile().toString());
                        },
                        () -> {
                            report.append("Kafka cluster  given by --bootstrap-servers, not started or stopped here\n");
                            row(report, "bootstrap", platform.bootstrapServers());
                        });
    }

    private static void renderPostgres(StringBuilder report, LocalPlatform platform) {
        LocalPostgres postgres = platform.postgres();
        report.append("PostgreSQL ")
                .append(postgres.serverVersion())
                .append(
                        postgres.isEmbedded()
                                ? "  embedded, started by this launcher, stopped with it\n"
                                : "  configured (orderflow.postgres.url / ORDERFLOW_POSTGRES_URL), left running on stop\n");
        row(report, "durability", postgres.durabilitySettings());
        postgres.embeddedDataDirectory().ifPresent(data -> row(report, "data", data + "  (kept across restarts)"));
        postgres.embeddedLogFile().ifPresent(log -> row(report, "log", log.toString()));
        row(report, "admin", postgres.adminJdbcUrl() + "  user " + postgres.user());
        report.append('\n');
        report.append(String.format("  %-22s %-22s %s%n", "SERVICE", "DATABASE", "JDBC URL"));
        for (PostgresDatabase database : platform.databases()) {
            report.append(String.format(
                    "  %-22s %-22s %s%n", database.serviceName(), database.databaseName(), database.jdbcUrl()));
        }
    }

    private static void renderServices(StringBuilder report, LocalPlatform platform) {
        if (platform.services().isEmpty()) {
            report.append("\nServices  not started (--no-services)\n");
            return;
        }
        report.append("\nServices  each its own process, stopped with the launcher\n");
        for (ServiceProcess service : platform.services()) {
            report.append(String.format(
                    "  %-14s %s  (health %s/q/health, metrics %s/q/metrics, log %s)%n",
                    service.name(), service.baseUri(), service.baseUri(), service.baseUri(), service.logFile()));
        }
        platform.smtpPort()
                .ifPresent(port -> report.append("  smtp           127.0.0.1:")
                        .append(port)
                        .append("  (GreenMail in this JVM; notification-service's mails, kept in memory: GET")
                        .append(" /notifications?orderId=... shows what was sent)\n"));
        platform.services().stream()
                .filter(service -> service.name().equals("lag-monitor"))
                .findFirst()
                .ifPresent(monitor -> report.append("  dashboard      ")
                        .append(monitor.baseUri())
                        .append("/  (consumer lag per group and partition, live; JSON at /lag)\n"));
        report.append("  try: curl -i -X POST localhost:")
                .append(platform.services().getFirst().baseUri().getPort())
                .append("/orders -H 'Content-Type: application/json' -d '{\"customerId\":\"c-1\",\"currency\":\"EUR\","
                        + "\"items\":[{\"sku\":\"sku-1\",\"quantity\":2,\"unitPrice\":\"9.99\"}]}'\n");
    }

    private static void row(StringBuilder report, String label, String value) {
        report.append(String.format("  %-10s %s%n", label, value));
    }
}
