package io.orderflow.ops.compose;

import static org.assertj.core.api.Assertions.assertThat;

import io.orderflow.broker.server.BrokerConfig;
import java.io.IOException;
import java.io.Reader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.yaml.snakeyaml.Yaml;

/**
 * docker-compose.yml checked against the modules it runs, since no Docker engine runs here: every image built from the
 * repository has its Dockerfile stage and module, every service listens where compose maps its port and answers its
 * health check path, every environment variable is a setting the service has, every database exists, every
 * dependency waits for a health check, and the Kafka profile is a three-node cluster that keeps acknowledged writes on
 * two replicas. ComposeStackTest runs the stack where an engine exists.
 */
class ComposeFileTest {

    private static final Path ROOT = Path.of("..", "..").toAbsolutePath().normalize();
    /** The services built on event-consumer, which share its orderflow.consumer.* settings. */
    private static final Set<String> CONSUMERS =
            Set.of("order-service", "inventory-service", "notification-service", "analytics-service");

    private static final Set<String> QUARKUS_SERVICES = Set.of(
            "order-service",
            "outbox-relay",
            "inventory-outbox-relay",
            "inventory-service",
            "notification-service",
            "analytics-service",
            "lag-monitor");
    private static final Pattern INFRASTRUCTURE_VARIABLE = Pattern.compile(
            "KAFKA_BOOTSTRAP_SERVERS|QUARKUS_CONFIG_LOCATIONS|QUARKUS_DATASOURCE_(JDBC_URL|USERNAME|PASSWORD)"
                    + "|QUARKUS_MAILER_(HOST|PORT)"
                    + "|QUARKUS_OTEL_(SDK_DISABLED|EXPORTER_OTLP_TRACES_ENDPOINT|SERVICE_NAME)");

    /** The one-shot security steps: they run to completion, and what depends on them waits for that. */
    private static final Set<String> ONE_SHOT = Set.of("secrets", "grant");

    private static Map<String, Object> compose;
    private static Map<String, Map<String, Object>> services;

    @BeforeAll
    @SuppressWarnings("unchecked")
    static void read() throws IOException {
        try (Reader reader = Files.newBufferedReader(ROOT.resolve("docker-compose.yml"), StandardCharsets.UTF_8)) {
            compose = new Yaml().load(reader);
        }
        services = (Map<String, Map<String, Object>>) compose.get("services");
    }

    @SuppressWarnings("unchecked")
    private static Map<String, Object> map(Object value) {
        return value == null ? Map.of() : (Map<String, Object>) value;
    }

    /** The root pom's kafka.version. */
    private static String kafkaVersion() throws IOException {
        Matcher version = Pattern.compile("<kafka\\.version>([^<]+)</kafka\\.version>")
                .matcher(Files.readString(ROOT.resolve("pom.xml")));
        assertThat(version.find()).as("kafka.version in pom.xml").isTrue();
        return version.group(1);
    }

    @SuppressWarnings("unchecked")
    private static List<String> list(Object value) {
        return value == null
                ? List.of()
                : ((List<Object>) value).stream().map(String::valueOf).toList();
    }

    /** The module a service's image is built from (its MODULE build argument), or null for the broker. */
    private static String module(String service) {
        return (String) map(map(services.get(service).get("build")).get("args")).get("MODULE");
    }

    private static Properties applicationProperties(String module) throws IOException {
        Properties properties = new Properties();
        try (Reader reader = Files.newBufferedReader(
                ROOT.resolve(module).resolve("src/main/resources/application.properties"), StandardCharsets.UTF_8)) {
            properties.load(reader);
        }
        return properties;
    }

    /** The container port of a {@code "host:container"} mapping. */
    private static List<Integer> containerPorts(String service) {
        return list(services.get(service).get("ports")).stream()
                .map(mapping -> Integer.parseInt(mapping.substring(mapping.lastIndexOf(':') + 1)))
                .toList();
    }

    @Test
    void everyBuiltImageHasItsDockerfileStageAndItsModule() throws IOException {
        List<String> built = new ArrayList<>();
        for (Map.Entry<String, Map<String, Object>> service : services.entrySet()) {
            Map<String, Object> build = map(service.getValue().get("build"));
            if (build.isEmpty()) {
                assertThat(String.valueOf(service.getValue().get("image")))
                        .as("%s's image has a pinned tag", service.getKey())
                        .matches("[a-z0-9./-]+:v?[0-9][0-9A-Za-z.-]*");
                continue;
            }
            built.add(service.getKey());
            Path dockerfile =
                    ROOT.resolve(String.valueOf(build.get("context"))).resolve(String.valueOf(build.get("dockerfile")));
            assertThat(dockerfile).isRegularFile();
            String stages = Files.readString(dockerfile);
            assertThat(stages)
                    .containsPattern("(?m)^FROM .* AS " + Pattern.quote(String.valueOf(build.get("target"))) + "$");
            String module = module(service.getKey());
            if (module != null) {
                assertThat(ROOT.resolve(module).resolve("pom.xml")).isRegularFile();
                assertThat(Files.readString(ROOT.resolve(module).resolve("pom.xml")))
                        .as("%s is packaged as a Quarkus application", module)
                        .contains("<artifactId>quarkus-maven-plugin</artifactId>");
                assertThat(stages).contains(module); // the build stage builds it
                assertThat(String.valueOf(service.getValue().get("image")))
                        .isEqualTo("orderflow/" + Path.of(module).getFileName() + ":latest");
            } else if (build.get("target").equals("platform-tools")) {
                assertThat(String.valueOf(service.getValue().get("image")))
                        .isEqualTo("orderflow/platform-tools:latest");
                assertThat(stages).contains("ops/platform", "io.orderflow.platform.ComposeSecurity");
            } else {
                assertThat(String.valueOf(service.getValue().get("image"))).isEqualTo("orderflow/log-broker:latest");
            }
        }
        assertThat(built).containsAll(QUARKUS_SERVICES).contains("log-broker", "secrets");
        assertThat(Files.readString(ROOT.resolve(".dockerignore"))).contains("**/target/", ".orderflow/");
    }

    @Test
    void everyServiceListensWhereComposeMapsItAndItsHealthCheckAsksItsReadinessPath() throws IOException {
        for (String service : QUARKUS_SERVICES) {
            String module = module(service);
            int port = Integer.parseInt(applicationProperties(module).getProperty("quarkus.http.port"));
            assertThat(containerPorts(service)).as(service).containsExactly(port);
            assertThat(list(map(services.get(service).get("healthcheck")).get("test")))
                    .as(service)
                    .contains("http://localhost:" + port + "/q/health/ready");
            assertThat(Files.readString(ROOT.resolve(module).resolve("pom.xml")))
                    .contains("<artifactId>quarkus-smallrye-health</artifactId>");
        }
        // The broker: its Kafka port and its metrics port, whose /health the check asks.
        assertThat(containerPorts("log-broker")).containsExactly(9092, 9404);
        assertThat(list(map(services.get("log-broker").get("healthcheck")).get("test")))
                .contains("http://localhost:9404/health");
    }

    @Test
    void theBrokersFlagsAreItsSettingsAndItAdvertisesItsComposeName() {
        List<String> flags = list(services.get("log-broker").get("command"));
        for (String flag : flags) {
            assertThat(flag).startsWith("--").contains("=");
            String key = flag.substring(2, flag.indexOf('='));
            if (!key.equals("config")) { // the settings file, BrokerMain's own option
                assertThat(BrokerConfig.KEYS).containsKey(key);
            }
        }
        assertThat(flags)
                .contains(
                        "--advertised.host=log-broker",
                        "--listeners=SASL_SSL://:9092",
                        "--config=/secrets/broker.properties");
    }

    @Test
    void everyVariableIsASettingOfItsServiceAndEveryDatabaseExists() throws IOException {
        String documented = Files.readString(ROOT.resolve("docs/configuration.md"));
        String databases = Files.readString(ROOT.resolve("ops/deploy/docker/postgres/10-databases.sql"));
        for (String service : QUARKUS_SERVICES) {
            String module = module(service);
            Properties defaults = applicationProperties(module);
            Map<String, Object> environment = map(services.get(service).get("environment"));
            for (Map.Entry<String, Object> variable : environment.entrySet()) {
                String name = variable.getKey();
                if (name.startsWith("ORDERFLOW_")) {
                    assertThat(documented)
                            .as("%s's %s is documented in docs/configuration.md", service, name)
                            .contains("`" + name + "`");
                    String own = "ORDERFLOW_" + module.toUpperCase().replace('-', '_') + "_";
                    assertThat(name.startsWith(own)
                                    || CONSUMERS.contains(module) && name.startsWith("ORDERFLOW_CONSUMER_"))
                            .as(
                                    "%s's %s is one of its own settings (%s*) or, for a consumer, a shared one"
                                            + " (ORDERFLOW_CONSUMER_*)",
                                    service, name, own)
                            .isTrue();
                } else {
                    assertThat(name).as("%s's %s", service, name).matches(INFRASTRUCTURE_VARIABLE);
                    String key = name.toLowerCase().replace('_', '.');
                    if (!name.equals("QUARKUS_OTEL_SERVICE_NAME")
                            && !name.equals("QUARKUS_DATASOURCE_PASSWORD")
                            && !name.equals("QUARKUS_CONFIG_LOCATIONS")) {
                        assertThat(defaults.stringPropertyNames().stream().map(k -> k.replace('-', '.')))
                                .as("%s sets %s, which %s's application.properties configures", service, name, module)
                                .contains(key);
                    }
                }
                if (name.equals("QUARKUS_DATASOURCE_JDBC_URL")) {
                    String url = String.valueOf(variable.getValue());
                    String database = url.substring(url.lastIndexOf('/') + 1);
                    assertThat(url).startsWith("jdbc:postgresql://postgres:5432/");
                    assertThat(databases).contains("CREATE DATABASE " + database + ";");
                    String own = defaults.getProperty("quarkus.datasource.jdbc.url");
                    if (!module.equals("outbox-relay")) {
                        assertThat(own).as(service).endsWith("/" + database);
                    }
                }
            }
            // Every service reaches the broker (order-service for the saga's answers) as its own principal, with
            // its settings and the admin token from the secrets volume make-secrets filled.
            assertThat(environment).as(service).containsKey("KAFKA_BOOTSTRAP_SERVERS");
            assertThat(environment)
                    .as(service)
                    .containsEntry("QUARKUS_CONFIG_LOCATIONS", "/secrets/services/" + service + ".properties");
            assertThat(list(services.get(service).get("volumes"))).contains("secrets:/secrets:ro");
        }
        // Each relay reads the outbox of the database whose service writes it, and publishes to that service's topic.
        assertThat(map(services.get("outbox-relay").get("environment")))
                .containsEntry("QUARKUS_DATASOURCE_JDBC_URL", "jdbc:postgresql://postgres:5432/order_service")
                .containsEntry("ORDERFLOW_OUTBOX_RELAY_TOPIC", "orders");
        assertThat(map(services.get("inventory-outbox-relay").get("environment")))
                .containsEntry("QUARKUS_DATASOURCE_JDBC_URL", "jdbc:postgresql://postgres:5432/inventory_service")
                .containsEntry("ORDERFLOW_OUTBOX_RELAY_TOPIC", "inventory");
        assertThat(map(services.get("notification-service").get("environment")))
                .containsEntry("QUARKUS_MAILER_HOST", "mailpit");
    }

    @Test
    void everyDependencyIsAServiceWithAHealthCheckThatIsWaitedFor() {
        for (Map.Entry<String, Map<String, Object>> service : services.entrySet()) {
            for (Map.Entry<String, Object> dependency :
                    map(service.getValue().get("depends_on")).entrySet()) {
                assertThat(services)
                        .as("%s depends on %s", service.getKey(), dependency.getKey())
                        .containsKey(dependency.getKey());
                if (ONE_SHOT.contains(dependency.getKey())) {
                    assertThat(map(dependency.getValue()))
                            .as("%s waits for %s to finish", service.getKey(), dependency.getKey())
                            .containsEntry("condition", "service_completed_successfully");
                    assertThat(services.get(dependency.getKey()).get("restart")).isEqualTo("no");
                    continue;
                }
                assertThat(map(dependency.getValue()))
                        .as("%s waits for %s", service.getKey(), dependency.getKey())
                        .containsEntry("condition", "service_healthy");
                assertThat(map(services.get(dependency.getKey()).get("healthcheck")))
                        .as("%s has a health check", dependency.getKey())
                        .containsKey("test");
            }
        }
        // A broker is optional per profile: whichever profile runs, its brokers are waited for.
        for (String service : QUARKUS_SERVICES) {
            Map<String, Object> dependencies = map(services.get(service).get("depends_on"));
            assertThat(map(dependencies.get("secrets"))).as(service).isNotEmpty();
            for (String broker : List.of("log-broker", "grant", "kafka-1", "kafka-2", "kafka-3")) {
                assertThat(map(dependencies.get(broker)))
                        .as("%s on %s", service, broker)
                        .containsEntry("required", false);
            }
        }
    }

    @Test
    void theKafkaProfileIsAThreeNodeKraftClusterKeepingEveryAcknowledgedWriteOnTwoReplicas() throws IOException {
        List<String> nodes = List.of("kafka-1", "kafka-2", "kafka-3");
        for (int i = 0; i < nodes.size(); i++) {
            Map<String, Object> node = services.get(nodes.get(i));
            assertThat(list(node.get("profiles"))).containsExactly("kafka");
            Map<String, Object> environment = map(node.get("environment"));
            assertThat(String.valueOf(environment.get("KAFKA_NODE_ID"))).isEqualTo(Integer.toString(i + 1));
            assertThat(environment)
                    .containsEntry("KAFKA_PROCESS_ROLES", "broker,controller")
                    .containsEntry("KAFKA_CONTROLLER_QUORUM_VOTERS", "1@kafka-1:9093,2@kafka-2:9093,3@kafka-3:9093")
                    .containsEntry("KAFKA_ADVERTISED_LISTENERS", "PLAINTEXT://" + nodes.get(i) + ":9092")
                    .containsEntry("KAFKA_DEFAULT_REPLICATION_FACTOR", 3)
                    .containsEntry("KAFKA_MIN_INSYNC_REPLICAS", 2)
                    .containsEntry("KAFKA_OFFSETS_TOPIC_REPLICATION_FACTOR", 3);
            assertThat(String.valueOf(node.get("image")))
                    .as("the Kafka profile runs the release the build anchors on (kafka.version in pom.xml)")
                    .isEqualTo("apache/kafka:" + kafkaVersion());
        }
        assertThat(list(services.get("log-broker").get("profiles"))).containsExactly("log-broker");
        String env = Files.readString(ROOT.resolve(".env"));
        assertThat(env).contains("COMPOSE_PROFILES=log-broker", "BOOTSTRAP_SERVERS=log-broker:9092");
        assertThat(env).contains("BOOTSTRAP_SERVERS=kafka-1:9092,kafka-2:9092,kafka-3:9092");
        // acks=all comes from the relay itself, whatever the broker: OutboxPublisher.producerConfig.
        assertThat(Files.readString(ROOT.resolve("outbox-relay/src/main/java/io/orderflow/relay/OutboxPublisher.java")))
                .contains("config.put(ProducerConfig.ACKS_CONFIG, \"all\")");
    }

    @Test
    void prometheusScrapesEveryServiceOnItsContainerPortWithTheAlertRulesAndGrafanaIsProvisioned() throws IOException {
        Map<String, Object> prometheus = services.get("prometheus");
        List<String> volumes = list(prometheus.get("volumes"));
        assertThat(volumes)
                .contains("./ops/deploy/prometheus/prometheus.compose.yml:/etc/prometheus/prometheus.yml:ro")
                .contains("./ops/deploy/prometheus/alerts.yml:/etc/prometheus/alerts.yml:ro");
        String scrape = Files.readString(ROOT.resolve("ops/deploy/prometheus/prometheus.compose.yml"));
        Matcher target = Pattern.compile("\"([a-z-]+):(\\d+)\"").matcher(scrape);
        List<String> targets = new ArrayList<>();
        while (target.find()) {
            String service = target.group(1);
            targets.add(service);
            assertThat(services).as("scrape target %s", service).containsKey(service);
            assertThat(containerPorts(service)).as(service).contains(Integer.parseInt(target.group(2)));
        }
        assertThat(targets).containsAll(QUARKUS_SERVICES).contains("log-broker");
        for (String volume : list(services.get("grafana").get("volumes"))) {
            assertThat(ROOT.resolve(volume.substring(0, volume.indexOf(':')))).isDirectory();
        }
        assertThat(map(services.get("grafana").get("environment")))
                .containsEntry("PROMETHEUS_URL", "http://prometheus:9090");
        for (String volume : list(services.get("postgres").get("volumes"))) {
            if (volume.startsWith("./")) {
                assertThat(ROOT.resolve(volume.substring(0, volume.indexOf(':'))))
                        .isRegularFile();
            }
        }
    }

    @Test
    void tracesGoToJaegerAndMailToMailpitWhichServesItOverPop3AndKeepsEveryMail() {
        for (String service : QUARKUS_SERVICES) {
            if (!service.equals("lag-monitor")) {
                assertThat(map(services.get(service).get("environment")))
                        .as(service)
                        .containsEntry("QUARKUS_OTEL_SDK_DISABLED", "false")
                        .containsEntry("QUARKUS_OTEL_EXPORTER_OTLP_TRACES_ENDPOINT", "http://jaeger:4317");
            }
        }
        assertThat(list(services.get("jaeger").get("ports"))).contains("4317:4317", "16686:16686");
        assertThat(list(services.get("mailpit").get("ports"))).contains("1025:1025", "8025:8025", "1110:1110");
        assertThat(map(services.get("notification-service").get("environment")))
                .containsEntry("QUARKUS_MAILER_PORT", "1025");
        // ops/bin/invariants reads every caught mail over POP3 with these credentials (its --help names them)
        assertThat(map(services.get("mailpit").get("environment")))
                .containsEntry("MP_POP3_AUTH", "orderflow:orderflow")
                .containsEntry("MP_MAX_MESSAGES", "0");
    }
}
