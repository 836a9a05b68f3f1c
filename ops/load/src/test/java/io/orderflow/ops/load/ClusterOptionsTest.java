package io.orderflow.ops.load;

import static org.assertj.core.api.Assertions.assertThat;

import io.orderflow.kafka.KafkaClientSettings;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;
import picocli.CommandLine.Mixin;

class ClusterOptionsTest {

    static final class Command {
        @Mixin
        ClusterOptions cluster;
    }

    private static ClusterOptions parse(String... args) {
        Command command = new Command();
        new CommandLine(command).parseArgs(args);
        return command.cluster;
    }

    @Test
    void withoutOptionsOrPlatformFileItIsPlaintextOnTheDefaultAddress(@TempDir Path clients) {
        assertThat(parse().cluster("ops-load", clients)).isEqualTo(KafkaClientSettings.plaintext("localhost:9092"));
    }

    @Test
    void thePlatformsFileForThePrincipalIsTheDefault(@TempDir Path clients) throws Exception {
        Files.writeString(clients.resolve("ops-drills.properties"), "security.protocol=SASL_SSL\n");

        assertThat(parse("--bootstrap-servers", "localhost:19092")
                        .cluster("ops-drills", clients)
                        .asMap())
                .containsEntry("security.protocol", "SASL_SSL")
                .containsEntry("bootstrap.servers", "localhost:19092");
        assertThat(parse().cluster("ops-load", clients).asMap()).doesNotContainKey("security.protocol");
        assertThat(parse("--command-config", "none").cluster("ops-drills", clients))
                .isEqualTo(KafkaClientSettings.plaintext("localhost:9092"));
    }

    @Test
    void aGivenCommandConfigWinsOverThePlatformsFile(@TempDir Path clients) throws Exception {
        Files.writeString(clients.resolve("ops-load.properties"), "security.protocol=SASL_SSL\n");
        Path mine = Files.writeString(clients.resolve("mine.properties"), "security.protocol=SSL\n");

        assertThat(parse("--command-config", mine.toString())
                        .cluster("ops-load", clients)
                        .asMap())
                .containsEntry("security.protocol", "SSL");
    }
}
