package io.orderflow.platform;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.net.URL;
import java.util.Collections;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.slf4j.LoggerFactory;

/**
 * The launcher logs through exactly one SLF4J provider, logback, configured by this module's logback.xml (the
 * broker's formats, text by default; zonky and kafka-clients only from warnings on).
 */
class LoggingSetupTest {
    @Test
    void exactlyOneSlf4jProviderIsOnTheClasspathAndItIsLogback() throws IOException {
        List<URL> providers = Collections.list(
                getClass().getClassLoader().getResources("META-INF/services/org.slf4j.spi.SLF4JServiceProvider"));

        assertThat(providers).singleElement().asString().contains("logback-classic");
        assertThat(LoggerFactory.getILoggerFactory().getClass().getName())
                .isEqualTo("ch.qos.logback.classic.LoggerContext");
    }

    @Test
    void thePlatformConfigurationSetsTheLevels() {
        assertThat(LoggerFactory.getLogger(PlatformLauncher.class).isInfoEnabled())
                .isTrue();
        assertThat(LoggerFactory.getLogger("io.zonky.test.db.postgres").isInfoEnabled())
                .isFalse();
        assertThat(LoggerFactory.getLogger("org.apache.kafka.clients.producer").isInfoEnabled())
                .isFalse();
        assertThat(LoggerFactory.getLogger("io.zonky.test.db.postgres").isWarnEnabled())
                .isTrue();
    }
}
