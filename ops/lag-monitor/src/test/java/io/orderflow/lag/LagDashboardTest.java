package io.orderflow.lag;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.orderflow.testing.HeadlessChromium;
import io.orderflow.testing.quarkus.BrokerResource;
import io.quarkus.test.common.ResourceArg;
import io.quarkus.test.common.WithTestResource;
import io.quarkus.test.common.http.TestHTTPResource;
import io.quarkus.test.junit.QuarkusTest;
import java.net.URL;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.openqa.selenium.By;

/**
 * The dashboard in a real browser (Debian's headless Chromium through its chromedriver, as an operator would open it)
 * against the monitor on our broker: a working group that falls behind appears with its lag, its lag grows and its
 * status turns WARN, its chart is drawn, and once it commits to the end it drains to lag 0 and OK. (README's picture
 * of the page is taken from the running platform, by {@code PlatformEndToEndTest}.)
 */
@QuarkusTest
@WithTestResource(value = BrokerResource.class, initArgs = @ResourceArg(name = "topics", value = "parcels:2"))
class LagDashboardTest {

    private static final String GROUP = "packers";
    private static final TopicPartition BUSY = new TopicPartition("parcels", 0);
    private static final Duration WITHIN = Duration.ofSeconds(60);

    @TestHTTPResource("/")
    URL page;

    /** The group's element at {@code selector}'s text, or "" while there is none. */
    private static String shown(HeadlessChromium browser, String selector) {
        return browser.shown("div.group[data-group='" + GROUP + "'] " + selector);
    }

    @Test
    void aLaggingGroupAppearsGrowsTurnsWarnAndDrainsToOk(@TempDir Path profile) throws Exception {
        assumeTrue(HeadlessChromium.installed(), HeadlessChromium.NOT_INSTALLED);
        try (KafkaProducer<String, String> producer = new KafkaProducer<>(
                        Map.of(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, BrokerResource.bootstrapServers()),
                        new StringSerializer(),
                        new StringSerializer());
                KafkaConsumer<String, String> member = new KafkaConsumer<>(
                        Map.of(
                                ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG,
                                BrokerResource.bootstrapServers(),
                                ConsumerConfig.GROUP_ID_CONFIG,
                                GROUP,
                                ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG,
                                "false"),
                        new StringDeserializer(),
                        new StringDeserializer())) {
            long[] produced = {0};
            Runnable produceTen = () -> {
                for (int i = 0; i < 10; i++) {
                    producer.send(new ProducerRecord<>(BUSY.topic(), BUSY.partition(), "key", "parcel"));
                }
                producer.flush();
                produced[0] += 10;
            };
            produceTen.run();
            member.subscribe(List.of(BUSY.topic()));
            while (member.assignment().isEmpty()) {
                member.poll(Duration.ofMillis(100));
            }
            long[] committed = {5};
            member.commitSync(Map.of(BUSY, new OffsetAndMetadata(committed[0])));

            try (HeadlessChromium browser = HeadlessChromium.open(profile, 1100, 1400)) {
                browser.get(page.toString());
                await().atMost(WITHIN).until(() -> shown(browser, ".lag").equals("5"));

                // Falling behind: ten records in, one committed, at every look.
                await().atMost(WITHIN)
                        .pollInSameThread()
                        .pollInterval(Duration.ofMillis(500))
                        .until(() -> {
                            produceTen.run();
                            committed[0]++;
                            member.commitSync(Map.of(BUSY, new OffsetAndMetadata(committed[0])));
                            return shown(browser, ".summary .status").equals("WARN");
                        });
                assertThat(Long.parseLong(shown(browser, ".lag"))).isGreaterThan(5);
                assertThat(shown(browser, "table.partitions"))
                        .contains("parcels-0")
                        .contains("WARN");
                assertThat(browser.driver()
                                .findElements(By.cssSelector("div.group[data-group='" + GROUP + "'] canvas")))
                        .isNotEmpty();

                // Catching up.
                member.commitSync(Map.of(BUSY, new OffsetAndMetadata(produced[0])));
                await().atMost(WITHIN)
                        .until(() -> shown(browser, ".summary .status").equals("OK")
                                && shown(browser, ".lag").equals("0"));
            }
        }
    }
}
