package io.orderflow.ops.prometheus;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * Prometheus's own tool on the files users load: {@code promtool check config} on {@code ops/deploy/prometheus/prometheus.yml}
 * (with its rule file), and {@code promtool test rules} on {@code alerts.test.yml}, whose cases make each alert fire
 * when it should and stay quiet when it should not. promtool comes from Debian's {@code prometheus} package, which
 * {@code .ci/run} installs.
 */
class AlertRulesTest {

    private static final Path PROMTOOL = Path.of("/usr/bin/promtool");
    private static final Path DIRECTORY = Path.of("prometheus");

    private static String promtool(String... args) throws IOException, InterruptedException {
        assumeTrue(
                Files.isExecutable(PROMTOOL), "promtool is not installed (Debian's prometheus; .ci/run installs it)");
        List<String> command = new java.util.ArrayList<>(List.of(PROMTOOL.toString()));
        command.addAll(List.of(args));
        Process process = new ProcessBuilder(command)
                .directory(DIRECTORY.toFile())
                .redirectErrorStream(true)
                .start();
        String output = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertThat(process.waitFor(60, TimeUnit.SECONDS)).isTrue();
        assertThat(process.exitValue()).as(output).isZero();
        return output;
    }

    @Test
    void theScrapeConfigurationAndItsRulesAreValid() throws Exception {
        assertThat(promtool("check", "config", "prometheus.yml"))
                .contains("SUCCESS: prometheus.yml is valid")
                .contains("SUCCESS: 8 rules found");
    }

    @Test
    void theComposeScrapeConfigurationAndItsRulesAreValid() throws Exception {
        assertThat(promtool("check", "config", "prometheus.compose.yml"))
                .contains("SUCCESS: prometheus.compose.yml is valid")
                .contains("SUCCESS: 8 rules found");
    }

    @Test
    void everyAlertFiresWhenItShouldAndOnlyThen() throws Exception {
        assertThat(promtool("test", "rules", "alerts.test.yml")).contains("SUCCESS");
    }
}
