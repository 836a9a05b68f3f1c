package io.orderflow.consumer;

import io.micrometer.core.instrument.MeterRegistry;
import io.opentelemetry.api.OpenTelemetry;
import io.orderflow.contracts.EventCatalog;
import io.orderflow.contracts.EventCodec;
import io.orderflow.kafka.KafkaClientSettings;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import javax.sql.DataSource;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.common.errors.TopicExistsException;

/**
 * One consuming service's processing, assembled: its retry and dead-letter topics (created at start when missing: a
 * consumer cannot subscribe to a topic that does not exist), the idempotent producer that routes failures to them, and
 * the {@link EventBatchProcessor} with the service's handler and meters. A service's Quarkus Messaging methods hand
 * their batches to {@link #process} (the source topic) and {@link #processRetries} (its retry topics). Thread-safe as
 * the processor is: one batch at a time per channel.
 *
 * <p>{@link #slowDown} makes the service a slow consumer on purpose, for the {@code slow-consumer} drill: each batch of
 * the source topic waits that long per record before it is processed, as if every record called a slow dependency.
 */
public final class ServiceConsumer implements AutoCloseable {

    /** The longest slowdown {@link #slowDown} accepts per record. */
    public static final Duration MAX_SLOWDOWN = Duration.ofSeconds(10);

    private final EventBatchProcessor processor;
    private final KafkaProducer<String, byte[]> producer;
    private volatile Duration slowdown = Duration.ZERO;

    private ServiceConsumer(EventBatchProcessor processor, KafkaProducer<String, byte[]> producer) {
        this.processor = processor;
        this.producer = producer;
    }

    /**
     * Creates {@code group}'s failure topics if missing ({@code failureTopicPartitions} partitions each, the broker's
     * replication factor) on the cluster {@code cluster} reaches, and the processor for {@code handler}, whose records'
     * spans go to {@code openTelemetry}.
     */
    public static ServiceConsumer start(
            String group,
            KafkaClientSettings cluster,
            List<Duration> retryDelays,
            int failureTopicPartitions,
            DataSource database,
            EventHandler handler,
            MeterRegistry registry,
            OpenTelemetry openTelemetry)
            throws InterruptedException, ExecutionException, TimeoutException {
        return start(
                group,
                EventCatalog.orderEvents(),
                cluster,
                retryDelays,
                failureTopicPartitions,
                database,
                handler,
                registry,
                openTelemetry);
    }

    /**
     * {@link #start} for a consumer of a topic whose events {@code catalog} knows (order-service's saga reads
     * inventory's outcomes).
     */
    public static ServiceConsumer start(
            String group,
            EventCatalog catalog,
            KafkaClientSettings cluster,
            List<Duration> retryDelays,
            int failureTopicPartitions,
            DataSource database,
            EventHandler handler,
            MeterRegistry registry,
            OpenTelemetry openTelemetry)
            throws InterruptedException, ExecutionException, TimeoutException {
        RetryTopics topics = RetryTopics.of(group, retryDelays);
        createFailureTopics(cluster, topics, failureTopicPartitions);
        KafkaProducer<String, byte[]> producer = FailureRouting.newProducer(cluster, group + "-failures");
        EventBatchProcessor processor = new EventBatchProcessor(
                database,
                new EventCodec(catalog),
                handler,
                new FailureRouting(topics, Clock.systemUTC()),
                producer,
                new ConsumerMetrics(registry, group),
                new RecordSpans(openTelemetry, group),
                Clock.systemUTC());
        return new ServiceConsumer(processor, producer);
    }

    /** A batch of the source topic; returns once every record is accounted for (see {@link EventBatchProcessor}). */
    public BatchOutcome process(ConsumerRecords<String, byte[]> records) throws InterruptedException {
        Duration perRecord = slowdown;
        if (!perRecord.isZero()) {
            Thread.sleep(perRecord.multipliedBy(records.count())); // the drill's slow dependency
        }
        return processor.process(list(records));
    }

    /**
     * From the next batch on, waits {@code perRecord} per record of the source topic before processing the batch;
     * {@link Duration#ZERO} for full speed again.
     *
     * @throws IllegalArgumentException if negative or above {@link #MAX_SLOWDOWN}
     */
    public void slowDown(Duration perRecord) {
        if (perRecord.isNegative() || perRecord.compareTo(MAX_SLOWDOWN) > 0) {
            throw new IllegalArgumentException("the slowdown per record must be between 0 and "
                    + MAX_SLOWDOWN.toMillis() + " ms, was " + perRecord.toMillis() + " ms");
        }
        slowdown = perRecord;
    }

    public Duration slowdown() {
        return slowdown;
    }

    /** {@link EventBatchProcessor#rehearse}: the records' processing, rolled back. */
    public int rehearse(List<ConsumerRecord<String, byte[]>> records) throws Exception {
        return processor.rehearse(records);
    }

    /** A batch of the retry topics, once its records are due. */
    public BatchOutcome processRetries(ConsumerRecords<String, byte[]> records) throws InterruptedException {
        return processor.processWhenDue(list(records));
    }

    @Override
    public void close() {
        processor.close();
        producer.close();
    }

    private static List<ConsumerRecord<String, byte[]>> list(ConsumerRecords<String, byte[]> records) {
        List<ConsumerRecord<String, byte[]>> list = new ArrayList<>(records.count());
        records.forEach(list::add);
        return list;
    }

    private static void createFailureTopics(KafkaClientSettings cluster, RetryTopics topics, int partitions)
            throws InterruptedException, ExecutionException, TimeoutException {
        try (Admin admin = Admin.create(cluster.admin(Map.of()))) {
            List<String> names = new ArrayList<>(topics.retryTopicNames());
            names.add(topics.deadLetterTopic());
            Set<String> existing = admin.listTopics().names().get(30, TimeUnit.SECONDS);
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
