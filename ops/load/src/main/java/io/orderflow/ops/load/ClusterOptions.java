package io.orderflow.ops.load;

import io.orderflow.kafka.KafkaClientSettings;
import java.nio.file.Files;
import java.nio.file.Path;
import picocli.CommandLine.Option;

/**
 * How an ops command reaches the Kafka cluster, with the options the Kafka CLI tools have for it: {@code
 * --bootstrap-servers} and {@code --command-config} (a client properties file: {@code security.protocol}, {@code
 * sasl.*}, {@code ssl.*}). A picocli mixin of the load generator, the drills and the operator commands.
 *
 * <p>Without {@code --command-config}, a command run beside a platform {@code ./run-platform} started uses the file
 * the platform wrote for it, {@code .orderflow/secrets/clients/PRINCIPAL.properties} (its own principal, with only
 * what it needs); with no such file it connects over PLAINTEXT. {@code --command-config none} forces PLAINTEXT.
 */
public final class ClusterOptions {

    /** Where {@code ./run-platform} writes each principal's client properties, under the working directory. */
    public static final Path PLATFORM_CLIENTS = Path.of(".orderflow", "secrets", "clients");

    @Option(
            names = "--bootstrap-servers",
            paramLabel = "HOSTS",
            defaultValue = LoadOptions.DEFAULT_BOOTSTRAP_SERVERS,
            description = "the Kafka cluster (default: ${DEFAULT-VALUE})")
    private String bootstrapServers;

    @Option(
            names = "--command-config",
            paramLabel = "FILE",
            description = {
                "Kafka client properties for the cluster (security.protocol, sasl.*, ssl.*), as the Kafka CLI tools"
                        + " take them; 'none' for PLAINTEXT",
                "(default: the file ./run-platform wrote for this command under " + ".orderflow/secrets/clients/, if"
                        + " there)"
            })
    private String commandConfig;

    /** The cluster as {@code principal}, the command's own user on a platform started by {@code ./run-platform}. */
    public KafkaClientSettings cluster(String principal) {
        return cluster(principal, PLATFORM_CLIENTS);
    }

    KafkaClientSettings cluster(String principal, Path platformClients) {
        if ("none".equals(commandConfig)) {
            return KafkaClientSettings.plaintext(bootstrapServers);
        }
        if (commandConfig != null) {
            return KafkaClientSettings.fromFile(bootstrapServers, Path.of(commandConfig));
        }
        Path platformFile = platformClients.resolve(principal + ".properties");
        return KafkaClientSettings.fromFile(bootstrapServers, Files.isRegularFile(platformFile) ? platformFile : null);
    }
}
