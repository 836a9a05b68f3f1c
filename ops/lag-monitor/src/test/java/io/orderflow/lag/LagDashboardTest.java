package io.orderflow.lag;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.orderflow.testing.quarkus.BrokerResource;
import io.quarkus.test.common.ResourceArg;
import io.quarkus.test.common.WithTestResource;
import io.quarkus.test.common.http.TestHTTPResource;
import io.quarkus.test.junit.QuarkusTest;
import java.net.URL;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
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
import org.openqa.selenium.JavascriptExecutor;
import org.openqa.selenium.OutputType;
import org.openqa.selenium.TakesScreenshot;
import org.openqa.selenium.WebDriver;
import org.openqa.selenium.chrome.ChromeDriver;
import org.openqa.selenium.chrome.ChromeDriverService;
import org.openqa.selenium.chrome.ChromeOptions;

/**
 * The dashboard in a real browser (Debian's headless Chromium through its chromedriver, as an operator would open it)
 * against the monitor on our broker: a working group that falls behind appears with its lag, its lag grows and its
 * status turns WARN, its chart is drawn, and once it commits to the end it drains to lag 0 and OK. Leaves a
 * screenshot of the page at {@code target/lag-dashboard.png}.
 */
@QuarkusTest
@WithTestResource(value = BrokerResource.class, initArgs = @ResourceArg(name = "topics", value = "parcels:2"))
class LagDashboardTest {

    private static final Path CHROMIUM = Path.of("/usr/bin/chromium");
    private static final Path CHROMEDRIVER = Path.of("/usr/bin/chromedriver");
    private static final String GROUP = "packers";
    private static final TopicPartition BUSY = new TopicPartition("parcels", 0);
    private static final Duration WITHIN = Duration.ofSeconds(60);

    @TestHTTPResource("/")
    URL page;

    private static WebDriver browser(Path profile) {
        ChromeDriverService service = new ChromeDriverService.Builder()
                .usingDriverExecutable(CHROMEDRIVER.toFile())
                .usingAnyFreePort()
                .build();
        ChromeOptions options = new ChromeOptions();
        options.setBinary(CHROMIUM.toFile());
        options.addArguments(
                "--headless=new",
                "--no-sandbox",
                "--disable-gpu",
                "--disable-quic",
                "--no-first-run",
                "--disable-background-networking",
                "--disable-component-update",
                "--disable-sync",
                "--window-size=1100,1400",
                "--user-data-dir=" + profile);
        return new ChromeDriver(service, options);
    }

    /**
     * The rendered text of the group's element at {@code selector}, or "" while there is none. Read in one script
     * call: the page re-renders every second, so an element looked up first and read after could be gone by then.
     */
    private static String shown(WebDriver browser, String selector) {
        Object text = ((JavascriptExecutor) browser)
                .executeScript(
                        "const e = document.querySelector(arguments[0]); return e ? e.innerText.trim() : '';",
                        "div.group[data-group='" + GROUP + "'] " + selector);
        return text == null ? "" : text.toString();
    }

    @Test
    void aLaggingGroupAppearsGrowsTurnsWarnAndDrainsToOk(@TempDir Path profile) throws Exception {
        assumeTrue(
                Files.isExecutable(CHROMIUM) && Files.isExecutable(CHROMEDRIVER),
                "Debian's chromium and chromium-driver are not installed; .ci/run installs them");
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

            WebDriver browser = browser(profile);
            try {
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
                assertThat(browser.findElements(By.cssSelector("div.group[data-group='" + GROUP + "'] canvas")))
                        .isNotEmpty();
                Path screenshot = ((TakesScreenshot) browser)
                        .getScreenshotAs(OutputType.FILE)
                        .toPath();
                Files.copy(screenshot, Path.of("target", "lag-dashboard.png"), StandardCopyOption.REPLACE_EXISTING);

                // Catching up.
                member.commitSync(Map.of(BUSY, new OffsetAndMetadata(produced[0])));
                await().atMost(WITHIN)
                        .until(() -> shown(browser, ".summary .status").equals("OK")
                                && shown(browser, ".lag").equals("0"));
            } finally {
                browser.quit();
            }
        }
    }
}
