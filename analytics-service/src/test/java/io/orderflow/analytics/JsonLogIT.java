package io.orderflow.analytics;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.orderflow.contracts.EventCodec;
import io.orderflow.contracts.EventEnvelope;
import io.orderflow.contracts.EventHeaders;
import io.orderflow.contracts.EventVersion;
import io.orderflow.contracts.order.OrderCancelled;
import io.orderflow.postgres.PostgresDatabase;
import io.orderflow.process.ServiceProcess;
import io.orderflow.testing.CleanSchema;
import io.orderflow.testing.InProcessBroker;
import io.orderflow.testing.PackagedService;
import io.orderflow.testing.PostgresTest;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The packaged service logs one JSON object per line, and a line about an event carries the event's order id, event
 * id and trace id as fields: here the dead-lettering of an event of a major version the service does not read.
 */
@PostgresTest(service = "analytics-json-log")
class JsonLogIT {

    private static final Duration WITHIN = Duration.ofMinutes(1);
    private static final ObjectMapper JSON = new ObjectMapper();

    /** The JSON line whose message dead-letters {@code eventId}, or null while there is none. */
    private static JsonNode deadLetteringOf(Path log, String eventId) throws Exception {
        JsonNode found = null;
        for (String line : Files.readAllLines(log)) {
            if (line.startsWith("{") && line.endsWith("}")) {
                JsonNode json = JSON.readTree(line);
                String message = json.path("message").asText();
                if (message.startsWith("dead-lettering") && message.contains(eventId)) {
                    found = json;
                }
            }
        }
        return found;
    }

    @Test
    void aLineAboutAnEventCarriesItsOrderIdEventIdAndTraceId(PostgresDatabase database, @TempDir Path dir)
            throws Exception {
        CleanSchema.empty(database);
        try (InProcessBroker broker = InProcessBroker.start(dir)) {
            broker.createTopic("orders", 3);
            String traceparent = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01";
            EventCodec codec = new EventCodec();
            EventEnvelope v1 = codec.wrap(
                    new OrderCancelled("order-json-1", "test"), UUID.randomUUID(), Instant.now(), "test", traceparent);
            EventEnvelope v2 = new EventEnvelope(
                    v1.eventId(),
                    v1.eventType(),
                    EventVersion.parse("2.0"),
                    v1.occurredAt(),
                    v1.producer(),
                    v1.orderId(),
                    traceparent,
                    v1.payload());
            try (ServiceProcess service = PackagedService.builder(
                                    "analytics-service", database, broker.bootstrapServers(), "analytics-json-log")
                            .start();
                    KafkaProducer<String, byte[]> producer = new KafkaProducer<>(
                            Map.of(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, broker.bootstrapServers()),
                            new StringSerializer(),
                            new ByteArraySerializer())) {
                ProducerRecord<String, byte[]> record =
                        new ProducerRecord<>("orders", "order-json-1", codec.encode(v2));
                EventHeaders.of(v2)
                        .forEach((name, value) -> record.headers().add(name, value.getBytes(StandardCharsets.UTF_8)));
                producer.send(record).get(30, TimeUnit.SECONDS);

                // The log file outlives a run of this test: the line wanted names this run's event in its message.
                JsonNode deadLettering = await().atMost(WITHIN)
                        .until(
                                () -> deadLetteringOf(
                                        service.logFile(), v2.eventId().toString()),
                                line -> line != null);
                assertThat(deadLettering.path("level").asText()).isEqualTo("WARN");
                assertThat(deadLettering.path("mdc").path("orderId").asText()).isEqualTo("order-json-1");
                assertThat(deadLettering.path("mdc").path("eventId").asText())
                        .isEqualTo(v2.eventId().toString());
                assertThat(deadLettering.path("mdc").path("traceId").asText())
                        .isEqualTo("4bf92f3577b34da6a3ce929d0e0e4736");
            }
        }
    }
}
