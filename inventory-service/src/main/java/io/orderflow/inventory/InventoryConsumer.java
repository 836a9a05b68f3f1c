package io.orderflow.inventory;

import io.micrometer.core.instrument.MeterRegistry;
import io.orderflow.consumer.ConsumerMetrics;
import io.orderflow.consumer.EventBatchProcessor;
import io.orderflow.consumer.FailureRouting;
import io.orderflow.consumer.RetryTopics;
import io.orderflow.contracts.EventCodec;
import io.quarkus.runtime.ShutdownEvent;
import io.smallrye.common.annotation.Blocking;
import jakarta.enterprise.event.Observes;
import jakarta.inject.Singleton;
import java.time.Clock;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import javax.sql.DataSource;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.common.errors.TopicExistsException;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.eclipse.microprofile.config.inject.ConfigProperty;
import org.eclipse.microprofile.reactive.messaging.Incoming;

/**
 * The service's two consumers, both in the group {@code inventory-service}: batches of the {@code orders} topic, and
 * batches of its retry topics ({@code inventory-service_retry_<ms>}, subscribed by pattern), each applied by the
 * {@link EventBatchProcessor} with the {@link InventoryLedger}. Quarkus Messaging commits a batch's offsets only after
 * the method returns (commit strategy {@code throttled}, acknowledgement after processing); an exception stops the
 * channel ({@code failure-strategy=fail}) rather than skip records, and the health check reports it.
 */
@Singleton
public class InventoryConsumer {

    static final String GROUP = "inventory-service";

    private final EventBatchProcessor processor;
    private final KafkaProducer<String, byte[]> producer;

    InventoryConsumer(
            DataSource dataSource,
            MeterRegistry registry,
            InventoryConfig config,
            @ConfigProperty(name = "kafka.bootstrap.servers") String bootstrapServers)
            throws InterruptedException, ExecutionException, TimeoutException {
        RetryTopics topics = RetryTopics.of(GROUP, config.retryDelays());
        createFailureTopics(bootstrapServers, topics, config.failureTopicPartitions());
        producer = new KafkaProducer<>(
                Map.of(
                        ProducerConfig.BOOTSTRAP_SERVERS_CONFIG,
                        bootstrapServers,
                        ProducerConfig.ACKS_CONFIG,
                        "all",
                        ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG,
                        true,
                        ProducerConfig.CLIENT_ID_CONFIG,
                        GROUP + "-failures"),
                new StringSerializer(),
                new ByteArraySerializer());
        processor = new EventBatchProcessor(
                dataSource,
                new EventCodec(),
                new InventoryLedger(Clock.systemUTC()),
                new FailureRouting(topics, Clock.systemUTC()),
                producer,
                new ConsumerMetrics(registry, GROUP),
                Clock.systemUTC());
    }

    @Incoming("orders")
    @Blocking
    public void consume(ConsumerRecords<String, byte[]> records) throws InterruptedException {
        processor.process(list(records));
    }

    @Incoming("orders-retry")
    @Blocking
    public void retry(ConsumerRecords<String, byte[]> records) throws InterruptedException {
        processor.processWhenDue(list(records));
    }

    void stop(@Observes ShutdownEvent event) {
        processor.close();
        producer.close();
    }

    private static List<ConsumerRecord<String, byte[]>> list(ConsumerRecords<String, byte[]> records) {
        List<ConsumerRecord<String, byte[]>> list = new ArrayList<>(records.count());
        records.forEach(list::add);
        return list;
    }

    /** The retry and dead-letter topics, created if missing: a consumer cannot subscribe to what does not exist. */
    private static void createFailureTopics(String bootstrapServers, RetryTopics topics, int partitions)
            throws InterruptedException, ExecutionException, TimeoutException {
        try (Admin admin = Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers))) {
            List<String> names = new ArrayList<>(topics.retryTopicNames());
            names.add(topics.deadLetterTopic());
            var existing = admin.listTopics().names().get(30, TimeUnit.SECONDS);
            List<NewTopic> missing = names.stream()
                    .filter(name -> !existing.contains(name))
                    .map(name -> new NewTopic(name, partitions, (short) -1))
                    .toList();
            try {
                admin.createTopics(missing).all().get(30, TimeUnit.SECONDS);
            } catch (ExecutionException e) {
                if (!(e.getCause() instanceof TopicExistsException)) {
                    throw e;
                }
            }
        }
    }
}
