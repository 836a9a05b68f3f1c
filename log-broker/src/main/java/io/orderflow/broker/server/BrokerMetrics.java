package io.orderflow.broker.server;

import io.orderflow.broker.group.GroupCoordinator;
import io.orderflow.broker.handler.RequestFaults;
import io.orderflow.broker.log.LogDirectory;
import io.orderflow.broker.network.ConnectionQuotas;
import io.orderflow.broker.network.NetworkStats;
import io.orderflow.broker.network.RequestMemory;
import io.orderflow.broker.quota.ClientQuotas;
import io.orderflow.broker.quota.QuotaType;
import io.orderflow.broker.security.Logins;
import io.prometheus.metrics.core.metrics.CounterWithCallback;
import io.prometheus.metrics.core.metrics.GaugeWithCallback;
import io.prometheus.metrics.model.registry.PrometheusRegistry;
import java.util.Map;
import java.util.function.LongSupplier;
import java.util.function.Supplier;
import java.util.function.ToDoubleFunction;

/**
 * What {@code GET /metrics} shows, registered in one {@link PrometheusRegistry}, every name with the {@code
 * orderflow_broker_} prefix:
 *
 * <ul>
 *   <li>{@code request_seconds} (histogram, {@code api}): {@link RequestMetrics};
 *   <li>{@code bytes_in_total}, {@code bytes_out_total}, {@code rejected_frames_total}, {@code
 *       connections_accepted_total}, {@code connections_refused_total}, {@code idle_connections_closed_total}
 *       (counters): the listeners' {@link NetworkStats}; {@code connections_open} (gauge): {@link ConnectionQuotas};
 *   <li>{@code request_memory_budget_bytes}, {@code request_memory_reserved_bytes}, {@code
 *       request_memory_waiting_frames} (gauges): {@link RequestMemory};
 *   <li>{@code log_end_offset}, {@code log_start_offset}, {@code log_size_bytes} (gauges) and {@code
 *       log_flushes_total} (counter), by {@code topic} and {@code partition}: {@link PartitionMetrics};
 *   <li>{@code group_committed_offset} and {@code group_lag} (gauges), by {@code group}, {@code topic} and {@code
 *       partition}: {@link GroupLagMetrics};
 *   <li>{@code request_failures_total} (counter), by {@code api}, {@code version} and {@code stage}: {@link
 *       RequestFaultMetrics};
 *   <li>{@code authentications_total} and {@code authentication_failures_total} (counters), by SASL {@code
 *       mechanism}: {@link Logins};
 *   <li>{@code throttled_responses_total} and {@code throttle_seconds_total} (counters), by {@code quota}
 *       ({@code producer_byte_rate}, {@code consumer_byte_rate}, {@code request_percentage}): {@link ClientQuotas}.
 * </ul>
 *
 * <p>Names, types, labels and HELP texts are a contract with whoever scrapes them (dashboards, alert rules, {@code
 * docs/}); {@code BrokerMetricsTest} writes each one out. A metric without samples (no partition yet, no failure)
 * is left out of the text, which to Prometheus is the same as its HELP and TYPE alone. The request histogram is
 * recorded as requests are answered; every other value is read from the broker's own state at scrape time. The
 * registry is the broker's own, not the library's default one, so two brokers in one JVM (as in tests) never share
 * a series.
 */
final class BrokerMetrics {
    private BrokerMetrics() {}

    static PrometheusRegistry registry(
            RequestMetrics requests,
            NetworkStats network,
            ConnectionQuotas connections,
            RequestMemory memory,
            LogDirectory logs,
            GroupCoordinator groups,
            RequestFaults faults,
            Logins logins,
            ClientQuotas quotas) {
        PrometheusRegistry registry = new PrometheusRegistry();
        requests.register(registry);
        counter(registry, "orderflow_broker_bytes_in_total", "Request bytes received.", network::bytesIn);
        counter(registry, "orderflow_broker_bytes_out_total", "Response bytes sent.", network::bytesOut);
        counter(
                registry,
                "orderflow_broker_rejected_frames_total",
                "Frames that closed their connection.",
                network::rejectedFrames);
        counter(
                registry,
                "orderflow_broker_connections_accepted_total",
                "Connections accepted.",
                network::acceptedConnections);
        counter(
                registry,
                "orderflow_broker_connections_refused_total",
                "Connections closed as soon as they were accepted: over max.connections or max.connections.per.ip.",
                network::refusedConnections);
        counter(
                registry,
                "orderflow_broker_idle_connections_closed_total",
                "Connections closed after connections.max.idle.ms without a request.",
                network::idleConnectionsClosed);
        gauge(registry, "orderflow_broker_connections_open", "Connections open now.", connections::open);
        gauge(
                registry,
                "orderflow_broker_request_memory_budget_bytes",
                "queued.max.request.bytes: the bytes of request frames being read and decoded at once (-1: unbounded).",
                () -> memory.budget() == Long.MAX_VALUE ? -1 : memory.budget());
        gauge(
                registry,
                "orderflow_broker_request_memory_reserved_bytes",
                "Bytes of request frames being read and decoded now.",
                memory::reserved);
        gauge(
                registry,
                "orderflow_broker_request_memory_waiting_frames",
                "Frames waiting for room in queued.max.request.bytes; their connections are not read meanwhile.",
                memory::waitingFrames);
        registry.register(new PartitionMetrics(logs));
        registry.register(new GroupLagMetrics(groups, logs));
        registry.register(new RequestFaultMetrics(faults));
        byMechanism(
                registry, "orderflow_broker_authentications_total", "SASL logins that succeeded.", logins::successes);
        byMechanism(
                registry,
                "orderflow_broker_authentication_failures_total",
                "SASL logins that failed.",
                logins::failures);
        byQuota(
                registry,
                "orderflow_broker_throttled_responses_total",
                "Answers that put their client over a client quota and muted its connection (throttle_time_ms > 0).",
                type -> quotas.throttledResponses(type));
        byQuota(
                registry,
                "orderflow_broker_throttle_seconds_total",
                "The throttle times given for client quotas, summed.",
                type -> quotas.throttleMillis(type) / 1000.0);
        return registry;
    }

    private static void byMechanism(
            PrometheusRegistry registry, String name, String help, Supplier<Map<String, Long>> counts) {
        CounterWithCallback.builder()
                .name(name)
                .help(help)
                .labelNames("mechanism")
                .callback(callback -> counts.get().forEach((mechanism, n) -> callback.call(n, mechanism)))
                .register(registry);
    }

    private static void byQuota(
            PrometheusRegistry registry, String name, String help, ToDoubleFunction<QuotaType> value) {
        CounterWithCallback.builder()
                .name(name)
                .help(help)
                .labelNames("quota")
                .callback(callback -> {
                    for (QuotaType type : QuotaType.values()) {
                        callback.call(value.applyAsDouble(type), type.key());
                    }
                })
                .register(registry);
    }

    private static void gauge(PrometheusRegistry registry, String name, String help, LongSupplier value) {
        GaugeWithCallback.builder()
                .name(name)
                .help(help)
                .callback(callback -> callback.call(value.getAsLong()))
                .register(registry);
    }

    private static void counter(PrometheusRegistry registry, String name, String help, LongSupplier value) {
        CounterWithCallback.builder()
                .name(name)
                .help(help)
                .callback(callback -> callback.call(value.getAsLong()))
                .register(registry);
    }
}
