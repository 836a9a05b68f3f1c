package io.orderflow.platform;

import io.orderflow.contracts.Topics;
import io.orderflow.kafka.KafkaClientSettings;
import java.io.IOException;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/**
 * The laptop platform's security for docker compose, in two one-shot containers of the {@code platform-tools} image
 * that share the {@code secrets} volume with the broker and the services:
 *
 * <ul>
 *   <li>{@code make-secrets DIR}, before the broker: the same secrets as {@code ./run-platform} makes ({@link
 *       PlatformSecrets}; the broker's certificate also for its compose name), the settings of the broker's SASL_SSL
 *       listener in {@code DIR/broker.properties} (read with {@code --config}; the listener itself is on its command
 *       line), and each service's {@code DIR/services/INSTANCE
 *       .properties} (read through {@code QUARKUS_CONFIG_LOCATIONS}); with {@code --security plaintext} (the Kafka profile)
 *       the services' files hold the admin token only;
 *   <li>{@code grant --bootstrap-servers HOSTS DIR}, once the broker is healthy and before the services: every
 *       principal's password and ACLs ({@link PlatformPrincipals}) and the topics, as the launcher sets them.
 * </ul>
 *
 * Both are idempotent: a restarted stack reads the secrets it made and sets the same passwords and ACLs again.
 */
@Command(
        name = "compose-security",
        mixinStandardHelpOptions = true,
        subcommands = {ComposeSecurity.MakeSecrets.class, ComposeSecurity.Grant.class},
        description = "Makes the compose stack's secrets, and grants its principals their ACLs.")
public final class ComposeSecurity {

    public static void main(String[] args) {
        System.exit(new CommandLine(new ComposeSecurity()).execute(args));
    }

    @Command(name = "make-secrets", description = "Makes (or keeps) the secrets in DIR and writes what reads them.")
    static final class MakeSecrets implements Callable<Integer> {
        @Parameters(paramLabel = "DIR", description = "the secrets volume, e.g. /secrets")
        Path dir;

        @Option(
                names = "--broker-name",
                defaultValue = "log-broker",
                description = "the broker's host name in its certificate, beside localhost (default: ${DEFAULT-VALUE})")
        String brokerName;

        @Option(
                names = "--security",
                defaultValue = "sasl_ssl",
                converter = PlatformCommandLine.SecurityMode.class,
                description = "sasl_ssl, or plaintext for services on a PLAINTEXT cluster (the Kafka profile)"
                        + " (default: ${DEFAULT-VALUE})")
        LaunchOptions.Security security;

        @Override
        public Integer call() throws IOException {
            PlatformSecrets secrets = PlatformSecrets.open(dir, List.of(brokerName));
            StringBuilder broker = new StringBuilder("listeners=SASL_SSL://:9092\n");
            broker.append(PlatformSecrets.properties(
                    "", settings(secrets.brokerListener().settings())));
            PlatformSecrets.writeOwnerOnly(secrets.directory().resolve("broker.properties"), broker.toString());
            boolean plaintext = security == LaunchOptions.Security.PLAINTEXT;
            for (String instance : PlatformPrincipals.SERVICES) {
                secrets.serviceConfiguration(instance, plaintext ? Map.of() : secrets.clientSecurity(instance));
            }
            System.out.println("secrets in " + secrets.directory() + (plaintext ? " (services on PLAINTEXT)" : ""));
            return 0;
        }
    }

    @Command(
            name = "grant",
            description = "Sets every principal's password and ACLs on the broker, creates the topics.")
    static final class Grant implements Callable<Integer> {
        @Parameters(paramLabel = "DIR", description = "the secrets volume make-secrets filled")
        Path dir;

        @Option(
                names = "--bootstrap-servers",
                required = true,
                description = "the broker, as this container reaches it")
        String bootstrapServers;

        @Override
        public Integer call() throws IOException {
            PlatformSecrets secrets = PlatformSecrets.open(dir);
            KafkaClientSettings admin = secrets.client(PlatformPrincipals.ADMIN, bootstrapServers);
            LocalPlatform.authorize(admin, secrets);
            LocalPlatform.createTopics(admin, Topics.ORDERS, Topics.INVENTORY);
            System.out.println("passwords, ACLs and topics set on " + bootstrapServers);
            return 0;
        }
    }

    /** {@code KEY=VALUE} lines as a map, in their order. */
    private static Map<String, String> settings(List<String> lines) {
        Map<String, String> settings = new java.util.LinkedHashMap<>();
        for (String line : lines) {
            int eq = line.indexOf('=');
            settings.put(line.substring(0, eq), line.substring(eq + 1));
        }
        return settings;
    }
}
