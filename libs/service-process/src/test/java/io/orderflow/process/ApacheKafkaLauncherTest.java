package io.orderflow.process;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

class ApacheKafkaLauncherTest {
    private static final Pattern KAFKA_VERSION = Pattern.compile("<kafka\\.version>([^<]+)</kafka\\.version>");

    @Test
    void theAnchorVersionIsTheBuildsKafkaVersion() throws IOException {
        assertThat(ApacheKafkaLauncher.VERSION).isEqualTo(kafkaVersion(Path.of("..", "..", "pom.xml")));
        assertThat(ApacheKafkaLauncher.NAME).isEqualTo("Apache Kafka " + ApacheKafkaLauncher.VERSION);
    }

    /** kafka-anchor has no parent (Quarkus's BOM must not touch Kafka's own dependencies), so it repeats the version. */
    @Test
    void kafkaAnchorResolvesTheSameRelease() throws IOException {
        assertThat(kafkaVersion(Path.of("..", "..", "log-broker", "kafka-anchor", "pom.xml")))
                .isEqualTo(ApacheKafkaLauncher.VERSION);
    }

    @Test
    void clusterIdsAreTwentyTwoUrlSafeCharacters() {
        assertThat(ApacheKafkaLauncher.randomClusterId()).matches("[A-Za-z0-9_-]{22}");
    }

    private static String kafkaVersion(Path pom) throws IOException {
        Matcher version = KAFKA_VERSION.matcher(Files.readString(pom));
        assertThat(version.find()).as("kafka.version in %s", pom).isTrue();
        return version.group(1);
    }
}
