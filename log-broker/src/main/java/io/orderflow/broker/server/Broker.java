package io.orderflow.broker.server;

import io.orderflow.broker.group.GroupCoordinator;
import io.orderflow.broker.group.GroupCoordinatorConfig;
import io.orderflow.broker.group.GroupStore;
import io.orderflow.broker.handler.ApiVersionsHandler;
import io.orderflow.broker.handler.BrokerNode;
import io.orderflow.broker.handler.CreatePartitionsHandler;
import io.orderflow.broker.handler.CreateTopicsHandler;
import io.orderflow.broker.handler.DeleteGroupsHandler;
import io.orderflow.broker.handler.DeleteRecordsHandler;
import io.orderflow.broker.handler.DeleteTopicsHandler;
import io.orderflow.broker.handler.DescribeClusterHandler;
import io.orderflow.broker.handler.DescribeConfigsHandler;
import io.orderflow.broker.handler.DescribeGroupsHandler;
import io.orderflow.broker.handler.FetchHandler;
import io.orderflow.broker.handler.FindCoordinatorHandler;
import io.orderflow.broker.handler.HeartbeatHandler;
import io.orderflow.broker.handler.IncrementalAlterConfigsHandler;
import io.orderflow.broker.handler.InitProducerIdHandler;
import io.orderflow.broker.handler.JoinGroupHandler;
import io.orderflow.broker.handler.LeaveGroupHandler;
import io.orderflow.broker.handler.ListGroupsHandler;
import io.orderflow.broker.handler.ListOffsetsHandler;
import io.orderflow.broker.handler.MetadataHandler;
import io.orderflow.broker.handler.OffsetCommitHandler;
import io.orderflow.broker.handler.OffsetDeleteHandler;
import io.orderflow.broker.handler.OffsetFetchHandler;
import io.orderflow.broker.handler.ProduceHandler;
import io.orderflow.broker.handler.RequestDispatcher;
import io.orderflow.broker.handler.SyncGroupHandler;
import io.orderflow.broker.log.LogCleaner;
import io.orderflow.broker.log.LogDirectory;
import io.orderflow.broker.log.LogFiles;
import io.orderflow.broker.log.PartitionLog;
import io.orderflow.broker.log.ProducerIds;
import io.orderflow.broker.network.SocketServer;
import java.io.Closeable;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.util.UUID;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.apache.kafka.common.protocol.ApiKeys;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One running broker: storage, handlers and the listener, wired together, plus the housekeeping schedule
 * (retention, compaction, {@code flush.ms}).
 *
 * <p>Start-up recovers every partition (see {@code LogLoader}) before the listener accepts anyone. A clean
 * {@link #close()} stops accepting, closes connections, then closes every log, leaving each partition's
 * clean-shutdown marker so the next start skips validation. A crash leaves no marker and the next start
 * validates the tails.
 */
public final class Broker implements Closeable {
    private static final Logger log = LoggerFactory.getLogger(Broker.class);
    private static final int FLUSHER_THREADS = 8;

    private final BrokerConfig config;
    private final BrokerNode node;
    private final LogDirectory logs;
    private final SocketServer server;
    private final ExecutorService flusher;
    private final ScheduledExecutorService scheduler;
    private final LogCleaner cleaner;
    private final RequestDispatcher dispatcher;
    private final PartitionLog offsetsLog;
    private final GroupCoordinator groups;
    private final RequestMetrics requestMetrics = new RequestMetrics();
    private final MetricsServer metrics;
    private volatile boolean serving;

    private Broker(BrokerConfig config, Clock clock) throws IOException {
        this.config = config;
        Files.createDirectories(config.dataDir());
        String clusterId = clusterId(config.dataDir());
        // fsyncs are waits, not CPU: enough threads that partitions' files are synced in parallel.
        this.flusher = Executors.newFixedThreadPool(
                FLUSHER_THREADS,
                Thread.ofPlatform().name("log-flusher-", 0).daemon(true).factory());
        this.scheduler = Executors.newSingleThreadScheduledExecutor(
                Thread.ofPlatform().name("broker-scheduler").daemon(true).factory());
        this.logs = LogDirectory.open(config.dataDir(), config.logDefaults(), clock, LogFiles.real(), flusher);
        this.cleaner = new LogCleaner(clock);
        ProducerIds producerIds = ProducerIds.open(config.dataDir(), LogFiles.real());
        this.offsetsLog = GroupStore.openLog(config.dataDir(), clock, LogFiles.real(), flusher);
        this.groups = new GroupCoordinator(
                offsetsLog,
                GroupCoordinatorConfig.defaults()
                        .withInitialRebalanceDelayMs(Math.toIntExact(config.groupInitialRebalanceDelayMs())),
                clock);
        this.server = SocketServer.bind(new InetSocketAddress(config.listenHost(), config.port()), config.limits());
        int advertisedPort = config.advertisedPort() > 0 ? config.advertisedPort() : server.port();
        this.node = new BrokerNode(config.nodeId(), config.advertisedHost(), advertisedPort, clusterId);

        AtomicReference<RequestDispatcher> self = new AtomicReference<>();
        this.dispatcher = RequestDispatcher.builder()
                .register(ApiKeys.API_VERSIONS, 5, new ApiVersionsHandler(self::get, node))
                .register(
                        ApiKeys.METADATA,
                        13,
                        new MetadataHandler(node, logs, config.autoCreateTopics(), config.numPartitions()))
                .register(ApiKeys.PRODUCE, 13, new ProduceHandler(logs))
                .register(ApiKeys.FETCH, 18, new FetchHandler(logs))
                .register(ApiKeys.LIST_OFFSETS, 7, new ListOffsetsHandler(logs))
                .register(ApiKeys.INIT_PRODUCER_ID, 5, new InitProducerIdHandler(producerIds))
                .register(ApiKeys.CREATE_TOPICS, 7, new CreateTopicsHandler(logs, config.numPartitions()))
                .register(ApiKeys.DELETE_TOPICS, 6, new DeleteTopicsHandler(logs))
                .register(ApiKeys.CREATE_PARTITIONS, 3, new CreatePartitionsHandler(logs))
                .register(ApiKeys.DELETE_RECORDS, 2, new DeleteRecordsHandler(logs))
                .register(ApiKeys.DESCRIBE_CONFIGS, 4, new DescribeConfigsHandler(node, logs))
                .register(ApiKeys.INCREMENTAL_ALTER_CONFIGS, 1, new IncrementalAlterConfigsHandler(logs))
                .register(ApiKeys.DESCRIBE_CLUSTER, 2, new DescribeClusterHandler(node))
                .register(ApiKeys.FIND_COORDINATOR, 6, new FindCoordinatorHandler(node))
                .register(ApiKeys.JOIN_GROUP, 9, new JoinGroupHandler(groups))
                .register(ApiKeys.SYNC_GROUP, 5, new SyncGroupHandler(groups))
                .register(ApiKeys.HEARTBEAT, 4, new HeartbeatHandler(groups))
                .register(ApiKeys.LEAVE_GROUP, 5, new LeaveGroupHandler(groups))
                .register(ApiKeys.OFFSET_COMMIT, 2, 10, new OffsetCommitHandler(groups, logs))
                .register(ApiKeys.OFFSET_FETCH, 1, 10, new OffsetFetchHandler(groups, logs))
                .register(ApiKeys.LIST_GROUPS, 5, new ListGroupsHandler(groups))
                .register(ApiKeys.DESCRIBE_GROUPS, 6, new DescribeGroupsHandler(groups))
                .register(ApiKeys.DELETE_GROUPS, 2, new DeleteGroupsHandler(groups))
                .register(ApiKeys.OFFSET_DELETE, 0, new OffsetDeleteHandler(groups, logs))
                .requestTimer(requestMetrics::record)
                .build();
        self.set(dispatcher);

        long interval = config.retentionCheckIntervalMs();
        scheduler.scheduleWithFixedDelay(this::housekeeping, interval, interval, TimeUnit.MILLISECONDS);
        scheduler.scheduleWithFixedDelay(this::groupTimers, 100, 100, TimeUnit.MILLISECONDS);
        this.metrics = config.metricsPort() < 0
                ? null
                : MetricsServer.start(
                        config.listenHost(),
                        config.metricsPort(),
                        requestMetrics,
                        server.stats(),
                        logs,
                        () -> serving,
                        new GroupLagMetrics(groups, logs));
        server.start(dispatcher);
        serving = true;
        log.info(
                "Broker {} serving Kafka clients on {}:{} (advertised {}:{}), data in {}",
                node.nodeId(),
                config.listenHost(),
                server.port(),
                node.host(),
                node.port(),
                config.dataDir().toAbsolutePath());
    }

    public static Broker start(BrokerConfig config, Clock clock) {
        try {
            return new Broker(config, clock);
        } catch (IOException e) {
            throw new UncheckedIOException("Cannot start the broker: " + e.getMessage(), e);
        }
    }

    private void groupTimers() {
        try {
            groups.tick();
        } catch (RuntimeException e) {
            log.error("Group coordinator timers failed", e);
        }
    }

    private void housekeeping() {
        try {
            logs.tick();
            offsetsLog.deleteRetainedSegments();
            offsetsLog.tick();
            cleaner.clean(offsetsLog);
            for (PartitionLog partition : logs.partitions()) {
                if (partition.config().cleanupPolicy().compacts()) {
                    cleaner.clean(partition);
                }
            }
        } catch (RuntimeException e) {
            log.error("Housekeeping failed", e);
        }
    }

    private static String clusterId(Path dataDir) throws IOException {
        Path file = dataDir.resolve("cluster-id");
        if (Files.exists(file)) {
            return Files.readString(file, StandardCharsets.US_ASCII).trim();
        }
        UUID uuid = UUID.randomUUID();
        String id = new org.apache.kafka.common.Uuid(uuid.getMostSignificantBits(), uuid.getLeastSignificantBits())
                .toString();
        Files.writeString(file, id, StandardCharsets.US_ASCII);
        return id;
    }

    public int port() {
        return server.port();
    }

    public BrokerNode node() {
        return node;
    }

    public LogDirectory logs() {
        return logs;
    }

    public BrokerConfig config() {
        return config;
    }

    public SocketServer server() {
        return server;
    }

    /** The port of {@code /metrics} and {@code /health}, or -1 when disabled. */
    public int metricsPort() {
        return metrics == null ? -1 : metrics.port();
    }

    @Override
    public void close() {
        log.info("Broker {} shutting down", node.nodeId());
        serving = false;
        server.close();
        if (metrics != null) {
            metrics.close();
        }
        scheduler.shutdownNow();
        try {
            scheduler.awaitTermination(10, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        groups.close();
        offsetsLog.close();
        logs.close();
        flusher.shutdown();
        log.info("Broker {} stopped cleanly", node.nodeId());
    }
}
