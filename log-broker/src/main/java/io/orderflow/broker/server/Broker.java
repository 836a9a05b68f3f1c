package io.orderflow.broker.server;

import io.orderflow.broker.group.GroupCoordinator;
import io.orderflow.broker.group.GroupStore;
import io.orderflow.broker.handler.AddOffsetsToTxnHandler;
import io.orderflow.broker.handler.AddPartitionsToTxnHandler;
import io.orderflow.broker.handler.AlterClientQuotasHandler;
import io.orderflow.broker.handler.AlterUserScramCredentialsHandler;
import io.orderflow.broker.handler.ApiVersionsHandler;
import io.orderflow.broker.handler.BrokerNode;
import io.orderflow.broker.handler.ConsumerGroupDescribeHandler;
import io.orderflow.broker.handler.ConsumerGroupHeartbeatHandler;
import io.orderflow.broker.handler.CreateAclsHandler;
import io.orderflow.broker.handler.CreatePartitionsHandler;
import io.orderflow.broker.handler.CreateTopicsHandler;
import io.orderflow.broker.handler.DeleteAclsHandler;
import io.orderflow.broker.handler.DeleteGroupsHandler;
import io.orderflow.broker.handler.DeleteRecordsHandler;
import io.orderflow.broker.handler.DeleteTopicsHandler;
import io.orderflow.broker.handler.DescribeAclsHandler;
import io.orderflow.broker.handler.DescribeClientQuotasHandler;
import io.orderflow.broker.handler.DescribeClusterHandler;
import io.orderflow.broker.handler.DescribeConfigsHandler;
import io.orderflow.broker.handler.DescribeGroupsHandler;
import io.orderflow.broker.handler.DescribeProducersHandler;
import io.orderflow.broker.handler.DescribeTransactionsHandler;
import io.orderflow.broker.handler.DescribeUserScramCredentialsHandler;
import io.orderflow.broker.handler.EndTxnHandler;
import io.orderflow.broker.handler.FetchHandler;
import io.orderflow.broker.handler.FetchSessionCache;
import io.orderflow.broker.handler.FindCoordinatorHandler;
import io.orderflow.broker.handler.HeartbeatHandler;
import io.orderflow.broker.handler.IncrementalAlterConfigsHandler;
import io.orderflow.broker.handler.InitProducerIdHandler;
import io.orderflow.broker.handler.JoinGroupHandler;
import io.orderflow.broker.handler.LeaveGroupHandler;
import io.orderflow.broker.handler.ListGroupsHandler;
import io.orderflow.broker.handler.ListOffsetsHandler;
import io.orderflow.broker.handler.ListTransactionsHandler;
import io.orderflow.broker.handler.MetadataHandler;
import io.orderflow.broker.handler.OffsetCommitHandler;
import io.orderflow.broker.handler.OffsetDeleteHandler;
import io.orderflow.broker.handler.OffsetFetchHandler;
import io.orderflow.broker.handler.Permissions;
import io.orderflow.broker.handler.ProduceHandler;
import io.orderflow.broker.handler.RequestDispatcher;
import io.orderflow.broker.handler.RequestFaults;
import io.orderflow.broker.handler.SaslAuthenticateHandler;
import io.orderflow.broker.handler.SaslHandshakeHandler;
import io.orderflow.broker.handler.SyncGroupHandler;
import io.orderflow.broker.handler.TxnOffsetCommitHandler;
import io.orderflow.broker.handler.WriteTxnMarkersHandler;
import io.orderflow.broker.log.DataDirectoryLock;
import io.orderflow.broker.log.LogCleaner;
import io.orderflow.broker.log.LogDirectory;
import io.orderflow.broker.log.LogFiles;
import io.orderflow.broker.log.PartitionLog;
import io.orderflow.broker.log.ProducerIds;
import io.orderflow.broker.network.ConnectionQuotas;
import io.orderflow.broker.network.Listener;
import io.orderflow.broker.network.NetworkStats;
import io.orderflow.broker.network.RequestMemory;
import io.orderflow.broker.network.SocketServer;
import io.orderflow.broker.quota.ClientQuotaStore;
import io.orderflow.broker.quota.ClientQuotas;
import io.orderflow.broker.security.AclStore;
import io.orderflow.broker.security.Authorizer;
import io.orderflow.broker.security.CredentialStore;
import io.orderflow.broker.security.Logins;
import io.orderflow.broker.security.PlainServerExchange;
import io.orderflow.broker.security.ScramCredential;
import io.orderflow.broker.security.ScramMechanism;
import io.orderflow.broker.txn.TransactionCoordinator;
import io.orderflow.broker.txn.TransactionLog;
import java.io.Closeable;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Deque;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Consumer;
import java.util.function.Supplier;
import javax.net.ssl.SSLEngine;
import org.apache.kafka.common.protocol.ApiKeys;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One running broker: storage, handlers and the listener, wired together, plus the housekeeping schedule
 * (retention, compaction, {@code flush.ms}).
 *
 * <p><b>Start-up</b> recovers every partition (see {@code LogLoader}) before the listener is bound, then binds
 * it, starts the schedule and the metrics endpoint, and only then accepts anyone. Each step that opens something
 * (threads, logs, sockets) records how to close it. If a step fails, what was opened is closed again, newest
 * first, and {@link #start} throws a {@link BrokerStartException} naming the step, listener and data directory:
 * the logs get their clean-shutdown markers back, the ports are free and no thread is left, so the same data
 * directory can be opened again at once (e.g. on another port).
 *
 * <p><b>Shutdown.</b> {@link #close()} closes the same record, newest first: the metrics endpoint, the schedule,
 * the listener and its connections, the group coordinator, then every log (leaving each partition's
 * clean-shutdown marker so the next start skips validation), then the flusher threads. A crash leaves no marker
 * and the next start validates the tails. If one step fails the others still run and the first failure is
 * thrown.
 *
 * <p><b>Thread-safety.</b> Start-up and {@link #close()} run on the caller's thread; everything else is called
 * concurrently by connections and the scheduler and is thread-safe in the components it delegates to.
 */
public final class Broker implements Closeable {
    private static final Logger log = LoggerFactory.getLogger(Broker.class);
    private static final int FLUSHER_THREADS = 8;

    private final BrokerConfig config;
    /** What start-up opened, newest first, with how to close it. */
    private final Deque<Opened> opened = new ArrayDeque<>();

    private final BrokerNode node;
    private final LogDirectory logs;
    private final SocketServer server;
    private final List<SocketServer> servers = new ArrayList<>();
    private final CredentialStore credentials;
    private final Authorizer authorizer;
    private final Logins logins;
    private final ClientQuotas quotas;
    private final NetworkStats networkStats = new NetworkStats();
    private final ConnectionQuotas connectionQuotas;
    private final RequestMemory requestMemory;
    private final ExecutorService flusher;
    private final ScheduledExecutorService scheduler;
    private final ScheduledExecutorService transactionTimers;
    private final LogCleaner cleaner;
    private final RequestDispatcher dispatcher;
    private final PartitionLog offsetsLog;
    private final GroupCoordinator groups;
    private final PartitionLog transactionStateLog;
    private final TransactionCoordinator transactions;
    private final RequestMetrics requestMetrics = new RequestMetrics();
    private final RequestFaults requestFaults;
    private final MetricsServer metrics;
    private volatile boolean serving;
    /** What start-up is doing, for the message of a failure: "bind the Kafka listener to ...". */
    private String step;

    private record Opened(String what, Runnable close) {}

    private Broker(BrokerConfig config, Clock clock) {
        this.config = config;
        this.requestFaults = new RequestFaults(clock);
        this.connectionQuotas = new ConnectionQuotas(config.limits());
        this.requestMemory = RequestMemory.of(
                config.limits().queuedMaxRequestBytes(), Runtime.getRuntime().maxMemory());
        long startedNanos = System.nanoTime();
        try {
            step("create the data directory " + config.dataDir().toAbsolutePath());
            Files.createDirectories(config.dataDir());
            step("lock the data directory " + config.dataDir().toAbsolutePath());
            opened("data directory lock", DataDirectoryLock.acquire(config.dataDir()), DataDirectoryLock::close);
            step("read the cluster id in " + config.dataDir().toAbsolutePath());
            String clusterId = clusterId(config.dataDir());
            step("start the log flusher threads");
            // fsyncs are waits, not CPU: enough threads that partitions' files are synced in parallel.
            this.flusher = opened(
                    "log flusher threads",
                    Executors.newFixedThreadPool(
                            FLUSHER_THREADS,
                            Thread.ofPlatform()
                                    .name("log-flusher-", 0)
                                    .daemon(true)
                                    .factory()),
                    ExecutorService::shutdown);
            step("open the partition logs in " + config.dataDir().toAbsolutePath());
            this.logs = opened(
                    "partition logs",
                    LogDirectory.open(config.dataDir(), config.logDefaults(), clock, LogFiles.real(), flusher),
                    LogDirectory::close);
            logs.limitPartitions(config.maxPartitions());
            this.cleaner = new LogCleaner(clock);
            step("open the producer id block");
            ProducerIds producerIds = ProducerIds.open(config.dataDir(), LogFiles.real());
            step("open the group offsets log");
            this.offsetsLog = opened(
                    "group offsets log",
                    GroupStore.openLog(config.dataDir(), clock, LogFiles.real(), flusher),
                    PartitionLog::close);
            step("load the consumer groups");
            this.groups = opened(
                    "group coordinator",
                    new GroupCoordinator(offsetsLog, config.groups(), clock, logs::topics),
                    GroupCoordinator::close);
            step("open the transaction log");
            this.transactionStateLog = opened(
                    "transaction log",
                    TransactionLog.openLog(config.dataDir(), clock, LogFiles.real(), flusher),
                    PartitionLog::close);
            step("load the transactions");
            this.transactions = new TransactionCoordinator(
                    new TransactionLog(transactionStateLog, clock),
                    logs,
                    groups,
                    producerIds,
                    clock,
                    TransactionCoordinator.DEFAULT_MAX_TIMEOUT_MS);
            // Open transactions survive a clean stop; after a crash they are aborted (TransactionCoordinator).
            transactions.start(transactionStateLog.recoveredCleanly()
                    && offsetsLog.recoveredCleanly()
                    && logs.partitions().stream().allMatch(PartitionLog::recoveredCleanly));
            logRecovery(System.nanoTime() - startedNanos);

            Path securityDir = config.dataDir().resolve("security");
            step("open the SCRAM credentials in " + securityDir.toAbsolutePath());
            this.credentials = CredentialStore.open(securityDir, LogFiles.real());
            addBootstrapCredentials(credentials, config.security());
            step("open the ACLs in " + securityDir.toAbsolutePath());
            SecurityConfig security = config.security();
            this.authorizer = new Authorizer(
                    security.authorizer(),
                    security.superUsers(),
                    security.allowEveryoneIfNoAcl(),
                    AclStore.open(securityDir, LogFiles.real()));
            this.logins = new Logins(clock, security.failedAuthenticationDelayMs());
            Path quotaDir = config.dataDir().resolve("quotas");
            step("open the client quotas in " + quotaDir.toAbsolutePath());
            this.quotas = new ClientQuotas(
                    ClientQuotaStore.open(quotaDir, LogFiles.real()),
                    config.quotaWindows().samples(),
                    config.quotaWindows().windowMs(),
                    clock);

            step("set up TLS");
            Supplier<SSLEngine> tlsEngines =
                    security.tls() == null ? null : security.tls().serverEngines();
            Map<String, BrokerNode.Endpoint> advertised = new LinkedHashMap<>();
            for (ListenerSpec spec : config.listeners()) {
                step("bind the Kafka listener " + spec.name() + " to " + spec.host() + ":" + spec.port());
                SocketServer bound = opened(
                        "Kafka listener " + spec.name(),
                        SocketServer.bind(
                                new Listener(
                                        spec.name(),
                                        spec.host().isEmpty()
                                                ? new InetSocketAddress(spec.port())
                                                : new InetSocketAddress(spec.host(), spec.port()),
                                        spec.protocol(),
                                        spec.protocol().usesTls() ? tlsEngines : null,
                                        saslMechanisms(spec, security)),
                                config.limits(),
                                config.connectionThreads(),
                                networkStats,
                                connectionQuotas,
                                requestMemory,
                                System::nanoTime),
                        SocketServer::close);
                servers.add(bound);
                advertised.put(
                        spec.name(),
                        new BrokerNode.Endpoint(
                                spec.advertisedHost(),
                                spec.advertisedPort() > 0 ? spec.advertisedPort() : bound.port()));
            }
            this.server = servers.getFirst();
            BrokerNode.Endpoint first = advertised.values().iterator().next();
            this.node = new BrokerNode(config.nodeId(), first.host(), first.port(), clusterId, advertised);
            this.dispatcher = dispatcher(
                    config,
                    node,
                    logs,
                    producerIds,
                    groups,
                    transactions,
                    requestMetrics,
                    requestFaults,
                    credentials,
                    authorizer,
                    logins,
                    quotas,
                    clock);

            step("start the housekeeping schedule");
            this.scheduler = opened(
                    "housekeeping schedule",
                    Executors.newSingleThreadScheduledExecutor(Thread.ofPlatform()
                            .name("broker-scheduler")
                            .daemon(true)
                            .factory()),
                    Broker::stopScheduler);
            long interval = config.retentionCheckIntervalMs();
            scheduler.scheduleWithFixedDelay(this::housekeeping, interval, interval, TimeUnit.MILLISECONDS);
            scheduler.scheduleWithFixedDelay(this::groupTimers, 100, 100, TimeUnit.MILLISECONDS);
            // Ending a transaction waits for its markers' fsyncs: on a thread of its own, never holding up the
            // groups' deadlines or housekeeping.
            this.transactionTimers = opened(
                    "transaction timers",
                    Executors.newSingleThreadScheduledExecutor(Thread.ofPlatform()
                            .name("broker-transaction-timers")
                            .daemon(true)
                            .factory()),
                    Broker::stopScheduler);
            transactionTimers.scheduleWithFixedDelay(this::transactionTimers, 100, 100, TimeUnit.MILLISECONDS);

            if (config.metricsPort() < 0) {
                this.metrics = null;
            } else {
                step("bind the metrics endpoint to " + config.listenHost() + ":" + config.metricsPort());
                this.metrics = opened(
                        "metrics endpoint",
                        MetricsServer.start(
                                config.listenHost(),
                                config.metricsPort(),
                                BrokerMetrics.registry(
                                        requestMetrics,
                                        networkStats,
                                        connectionQuotas,
                                        requestMemory,
                                        logs,
                                        groups,
                                        requestFaults,
                                        logins,
                                        quotas),
                                () -> serving),
                        MetricsServer::close);
            }
            step("start accepting Kafka clients");
            servers.forEach(s -> s.start(dispatcher));
        } catch (IOException | RuntimeException e) {
            BrokerStartException failure = new BrokerStartException(
                    step, listener(config), config.dataDir().toAbsolutePath(), e);
            closeOpened(failure);
            throw failure;
        } catch (Error e) {
            closeOpened(e);
            throw e;
        }
        serving = true;
        log.atInfo()
                .addKeyValue("nodeId", node.nodeId())
                .addKeyValue("listenHost", config.listenHost())
                .addKeyValue("port", server.port())
                .addKeyValue(
                        "listeners",
                        servers.stream()
                                .map(x -> x.listener().name() + ":" + x.port())
                                .toList())
                .addKeyValue("advertisedHost", node.host())
                .addKeyValue("advertisedPort", node.port())
                .addKeyValue("metricsPort", metricsPort())
                .addKeyValue("dataDir", config.dataDir().toAbsolutePath())
                .addKeyValue("clusterId", node.clusterId())
                .addKeyValue("startupMs", TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - startedNanos))
                .log("Broker serving Kafka clients");
    }

    /**
     * Starts a broker: recovers the logs in {@code config.dataDir()}, binds the listener and serves.
     *
     * @throws BrokerStartException when a step fails (a port in use, an unreadable data directory); nothing that
     *     start-up opened is left open
     */
    public static Broker start(BrokerConfig config, Clock clock) {
        return new Broker(config, clock);
    }

    private void step(String description) {
        this.step = description;
    }

    private <T> T opened(String what, T resource, Consumer<T> close) {
        opened.push(new Opened(what, () -> close.accept(resource)));
        return resource;
    }

    /**
     * Closes everything opened so far, newest first; a step that fails does not stop the others. Failures are
     * added to {@code failure} when given (a failed start), else the first is returned.
     */
    private RuntimeException closeOpened(Throwable failure) {
        RuntimeException first = null;
        while (!opened.isEmpty()) {
            Opened next = opened.pop();
            try {
                next.close().run();
            } catch (RuntimeException e) {
                log.atWarn().setCause(e).addKeyValue("component", next.what()).log("Cannot close a broker component");
                if (failure != null) {
                    failure.addSuppressed(e);
                } else if (first == null) {
                    first = e;
                } else {
                    first.addSuppressed(e);
                }
            }
        }
        return first;
    }

    private static String listener(BrokerConfig config) {
        return config.listeners().stream()
                .map(l -> l.name() + "://" + l.host() + ":" + l.port())
                .collect(java.util.stream.Collectors.joining(","));
    }

    private void logRecovery(long nanos) {
        Collection<PartitionLog> partitions = logs.partitions();
        log.atInfo()
                .addKeyValue("dataDir", config.dataDir().toAbsolutePath())
                .addKeyValue("topics", logs.topics().size())
                .addKeyValue("partitions", partitions.size())
                .addKeyValue(
                        "partitionsValidated",
                        partitions.stream().filter(p -> !p.recoveredCleanly()).count())
                .addKeyValue("recoveryMs", TimeUnit.NANOSECONDS.toMillis(nanos))
                .log("Logs opened");
    }

    /** The mechanisms a listener offers: none without SASL, and PLAIN only over TLS (it sends the password). */
    private static Set<String> saslMechanisms(ListenerSpec spec, SecurityConfig security) {
        if (!spec.protocol().usesSasl()) {
            return Set.of();
        }
        Set<String> mechanisms = new LinkedHashSet<>(security.saslMechanisms());
        if (!spec.protocol().usesTls()) {
            mechanisms.remove(PlainServerExchange.MECHANISM);
        }
        return mechanisms;
    }

    /** Creates the configured users that have no credential of that mechanism yet; never overwrites one. */
    private static void addBootstrapCredentials(CredentialStore credentials, SecurityConfig security) {
        List<CredentialStore.ScramCredentialUpsert> missing = new ArrayList<>();
        for (SecurityConfig.BootstrapCredential c : security.bootstrapCredentials()) {
            if (credentials.credential(c.user(), c.mechanism()).isEmpty()) {
                missing.add(new CredentialStore.ScramCredentialUpsert(
                        c.user(),
                        ScramCredential.fromPassword(
                                c.mechanism(), c.password().toCharArray(), ScramMechanism.MIN_ITERATIONS)));
            }
        }
        if (!missing.isEmpty()) {
            credentials.change(List.of(), missing);
            log.atInfo()
                    .addKeyValue(
                            "users",
                            missing.stream()
                                    .map(CredentialStore.ScramCredentialUpsert::user)
                                    .distinct()
                                    .toList())
                    .log("Created SCRAM credentials from scram.bootstrap.credentials");
        }
    }

    private static RequestDispatcher dispatcher(
            BrokerConfig config,
            BrokerNode node,
            LogDirectory logs,
            ProducerIds producerIds,
            GroupCoordinator groups,
            TransactionCoordinator transactions,
            RequestMetrics requestMetrics,
            RequestFaults requestFaults,
            CredentialStore credentials,
            Authorizer authorizer,
            Logins logins,
            ClientQuotas quotas,
            Clock clock) {
        AtomicReference<RequestDispatcher> self = new AtomicReference<>();
        Permissions permissions = authorizer.enabled() ? new Permissions(authorizer) : Permissions.allowAll();
        RequestDispatcher dispatcher = RequestDispatcher.builder()
                .register(ApiKeys.SASL_HANDSHAKE, 0, 1, new SaslHandshakeHandler(credentials))
                .register(
                        ApiKeys.SASL_AUTHENTICATE,
                        2,
                        new SaslAuthenticateHandler(
                                logins, clock, config.security().reauthMs()))
                .register(
                        ApiKeys.ALTER_USER_SCRAM_CREDENTIALS,
                        0,
                        new AlterUserScramCredentialsHandler(credentials, permissions))
                .register(
                        ApiKeys.DESCRIBE_USER_SCRAM_CREDENTIALS,
                        0,
                        new DescribeUserScramCredentialsHandler(credentials, permissions))
                .register(
                        ApiKeys.DESCRIBE_CLIENT_QUOTAS, 1, new DescribeClientQuotasHandler(quotas.store(), permissions))
                .register(ApiKeys.ALTER_CLIENT_QUOTAS, 1, new AlterClientQuotasHandler(quotas.store(), permissions))
                .register(ApiKeys.CREATE_ACLS, 3, new CreateAclsHandler(authorizer, permissions))
                .register(ApiKeys.DESCRIBE_ACLS, 3, new DescribeAclsHandler(authorizer, permissions))
                .register(ApiKeys.DELETE_ACLS, 3, new DeleteAclsHandler(authorizer, permissions))
                .register(ApiKeys.API_VERSIONS, 5, new ApiVersionsHandler(self::get, node))
                .register(
                        ApiKeys.METADATA,
                        13,
                        new MetadataHandler(node, logs, config.autoCreateTopics(), config.numPartitions(), permissions))
                .register(ApiKeys.PRODUCE, 13, new ProduceHandler(logs, permissions, transactions))
                .register(
                        ApiKeys.FETCH,
                        18,
                        new FetchHandler(
                                logs,
                                permissions,
                                quotas,
                                new FetchSessionCache(
                                        FetchSessionCache.DEFAULT_MAX_SESSIONS,
                                        FetchSessionCache.DEFAULT_EVICTION_IDLE_MS,
                                        clock)))
                .register(ApiKeys.LIST_OFFSETS, 7, new ListOffsetsHandler(logs, permissions))
                .register(
                        ApiKeys.INIT_PRODUCER_ID, 5, new InitProducerIdHandler(producerIds, transactions, permissions))
                .register(
                        ApiKeys.ADD_PARTITIONS_TO_TXN,
                        3,
                        new AddPartitionsToTxnHandler(transactions, logs, permissions))
                .register(ApiKeys.ADD_OFFSETS_TO_TXN, 4, new AddOffsetsToTxnHandler(transactions, permissions))
                .register(ApiKeys.END_TXN, 4, new EndTxnHandler(transactions, permissions))
                .register(
                        ApiKeys.TXN_OFFSET_COMMIT,
                        4,
                        new TxnOffsetCommitHandler(transactions, groups, logs, permissions))
                .register(ApiKeys.DESCRIBE_TRANSACTIONS, 0, new DescribeTransactionsHandler(transactions, permissions))
                .register(ApiKeys.DESCRIBE_PRODUCERS, 0, new DescribeProducersHandler(logs, permissions))
                .register(ApiKeys.WRITE_TXN_MARKERS, 1, 2, new WriteTxnMarkersHandler(logs, permissions))
                .register(ApiKeys.LIST_TRANSACTIONS, 2, new ListTransactionsHandler(transactions, permissions, clock))
                .register(ApiKeys.CREATE_TOPICS, 7, new CreateTopicsHandler(logs, config.numPartitions(), permissions))
                .register(ApiKeys.DELETE_TOPICS, 6, new DeleteTopicsHandler(logs, permissions))
                .register(ApiKeys.CREATE_PARTITIONS, 3, new CreatePartitionsHandler(logs, permissions))
                .register(ApiKeys.DELETE_RECORDS, 2, new DeleteRecordsHandler(logs, permissions))
                .register(ApiKeys.DESCRIBE_CONFIGS, 4, new DescribeConfigsHandler(node, logs, permissions))
                .register(ApiKeys.INCREMENTAL_ALTER_CONFIGS, 1, new IncrementalAlterConfigsHandler(logs, permissions))
                .register(ApiKeys.DESCRIBE_CLUSTER, 2, new DescribeClusterHandler(node, permissions))
                .register(ApiKeys.FIND_COORDINATOR, 6, new FindCoordinatorHandler(node, permissions))
                .register(ApiKeys.JOIN_GROUP, 9, new JoinGroupHandler(groups, permissions))
                .register(ApiKeys.SYNC_GROUP, 5, new SyncGroupHandler(groups, permissions))
                .register(ApiKeys.HEARTBEAT, 4, new HeartbeatHandler(groups, permissions))
                .register(ApiKeys.LEAVE_GROUP, 5, new LeaveGroupHandler(groups, permissions))
                .register(ApiKeys.OFFSET_COMMIT, 2, 10, new OffsetCommitHandler(groups, logs, permissions))
                .register(ApiKeys.OFFSET_FETCH, 1, 10, new OffsetFetchHandler(groups, logs, permissions))
                .register(ApiKeys.LIST_GROUPS, 5, new ListGroupsHandler(groups, permissions))
                .register(ApiKeys.DESCRIBE_GROUPS, 6, new DescribeGroupsHandler(groups, permissions))
                .register(
                        ApiKeys.CONSUMER_GROUP_HEARTBEAT, 0, 1, new ConsumerGroupHeartbeatHandler(groups, permissions))
                .register(ApiKeys.CONSUMER_GROUP_DESCRIBE, 0, 1, new ConsumerGroupDescribeHandler(groups, permissions))
                .register(ApiKeys.DELETE_GROUPS, 2, new DeleteGroupsHandler(groups, permissions))
                .register(ApiKeys.OFFSET_DELETE, 0, new OffsetDeleteHandler(groups, logs, permissions))
                .requestTimer(requestMetrics::record)
                .faults(requestFaults)
                .clock(clock)
                .quotas(quotas)
                .build();
        self.set(dispatcher);
        return dispatcher;
    }

    private static void stopScheduler(ScheduledExecutorService scheduler) {
        scheduler.shutdownNow();
        try {
            scheduler.awaitTermination(10, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    private void groupTimers() {
        try {
            groups.tick();
        } catch (RuntimeException e) {
            log.atError().setCause(e).log("Group coordinator timers failed; they run again in 100 ms");
        } catch (Error e) {
            FatalErrors.stop(Thread.currentThread(), e);
        }
    }

    private void transactionTimers() {
        try {
            transactions.tick();
        } catch (RuntimeException e) {
            log.atError().setCause(e).log("Transaction timers failed; they run again in 100 ms");
        } catch (Error e) {
            FatalErrors.stop(Thread.currentThread(), e);
        }
    }

    private void housekeeping() {
        try {
            logs.tick();
            offsetsLog.deleteRetainedSegments();
            offsetsLog.tick();
            cleaner.clean(offsetsLog);
            transactionStateLog.deleteRetainedSegments();
            transactionStateLog.tick();
            cleaner.clean(transactionStateLog);
            for (PartitionLog partition : logs.partitions()) {
                if (partition.config().cleanupPolicy().compacts()) {
                    cleaner.clean(partition);
                }
            }
        } catch (RuntimeException e) {
            log.atError()
                    .setCause(e)
                    .addKeyValue("retryMs", config.retentionCheckIntervalMs())
                    .log("Housekeeping failed");
        } catch (Error e) {
            FatalErrors.stop(Thread.currentThread(), e);
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

    /** The bytes of request frames being read and decoded, on every listener ({@code queued.max.request.bytes}). */
    public RequestMemory requestMemory() {
        return requestMemory;
    }

    /** The requests that failed inside the broker (bugs and storage failures), counted. */
    public RequestFaults requestFaults() {
        return requestFaults;
    }

    /** The connections open on every listener, against {@code max.connections} and the per-address limits. */
    public ConnectionQuotas connectionQuotas() {
        return connectionQuotas;
    }

    /** The first listener's server. */
    public SocketServer server() {
        return server;
    }

    /** Every listener's server, in the order of {@code listeners}. */
    public List<SocketServer> servers() {
        return List.copyOf(servers);
    }

    /** The bound port of the listener named {@code name}. */
    public int port(String name) {
        return servers.stream()
                .filter(s -> s.listener().name().equals(name))
                .findFirst()
                .orElseThrow(() -> new IllegalArgumentException("No listener " + name))
                .port();
    }

    public CredentialStore credentials() {
        return credentials;
    }

    public Authorizer authorizer() {
        return authorizer;
    }

    public Logins logins() {
        return logins;
    }

    /** The port of {@code /metrics} and {@code /health}, or -1 when disabled. */
    public int metricsPort() {
        return metrics == null ? -1 : metrics.port();
    }

    /** Stops the broker; see the class comment. Idempotent. */
    @Override
    public synchronized void close() {
        if (opened.isEmpty()) {
            return;
        }
        log.atInfo().addKeyValue("nodeId", node.nodeId()).log("Broker shutting down");
        serving = false;
        RuntimeException failure = closeOpened(null);
        if (failure != null) {
            throw failure;
        }
        log.atInfo().addKeyValue("nodeId", node.nodeId()).log("Broker stopped cleanly");
    }
}
