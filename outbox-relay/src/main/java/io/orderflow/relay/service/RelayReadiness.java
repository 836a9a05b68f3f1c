package io.orderflow.relay.service;

import io.orderflow.relay.RelayStatus;
import jakarta.inject.Singleton;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.DescribeClusterOptions;
import org.eclipse.microprofile.health.HealthCheck;
import org.eclipse.microprofile.health.HealthCheckResponse;
import org.eclipse.microprofile.health.Readiness;

/**
 * Ready when the relay has a database session (leading or standing by), the broker answers, and no send has been
 * waiting for the broker longer than {@code orderflow.outbox-relay.broker-timeout}. The broker is asked directly
 * (DescribeCluster), because an idle relay sends nothing and would not notice the broker is gone.
 */
@Readiness
@Singleton
public class RelayReadiness implements HealthCheck {

    private static final Duration PROBE_TIMEOUT = Duration.ofSeconds(2);

    private final RelayService service;
    private final Clock clock = Clock.systemUTC();
    private Admin admin;

    RelayReadiness(RelayService service) {
        this.service = service;
    }

    @Override
    public synchronized HealthCheckResponse call() {
        RelayStatus status = service.relay().status();
        Duration brokerTimeout = service.relay().settings().brokerTimeout();
        Instant waitingSince = status.brokerWaitingSince();
        boolean sendsStuck = waitingSince != null
                && Duration.between(waitingSince, clock.instant()).compareTo(brokerTimeout) > 0;
        String brokerProblem = probeBroker();
        boolean ready = (status.role() == RelayStatus.Role.LEADER || status.role() == RelayStatus.Role.STANDBY)
                && !sendsStuck
                && brokerProblem == null;
        return HealthCheckResponse.named("outbox-relay")
                .status(ready)
                .withData("role", status.role().name())
                .withData("broker", brokerProblem == null ? "reachable" : brokerProblem)
                .withData("waitingForBrokerSince", waitingSince == null ? "-" : waitingSince.toString())
                .withData("lastError", status.lastError() == null ? "-" : status.lastError())
                .build();
    }

    private String probeBroker() {
        try {
            if (admin == null) {
                // No re-bootstrapping: with the broker down, kafka-clients 4.4's admin client otherwise re-bootstraps
                // in a tight loop (hundreds of log lines a second); retrying the known address with back-off is
                // all a health probe needs.
                admin = Admin.create(service.cluster()
                        .admin(Map.of(
                                AdminClientConfig.CLIENT_ID_CONFIG,
                                "outbox-relay-health",
                                AdminClientConfig.METADATA_RECOVERY_STRATEGY_CONFIG,
                                "none",
                                AdminClientConfig.RECONNECT_BACKOFF_MS_CONFIG,
                                200,
                                AdminClientConfig.RECONNECT_BACKOFF_MAX_MS_CONFIG,
                                2000)));
            }
            admin.describeCluster(new DescribeClusterOptions().timeoutMs((int) PROBE_TIMEOUT.toMillis()))
                    .clusterId()
                    .get(PROBE_TIMEOUT.toMillis() + 500, TimeUnit.MILLISECONDS);
            return null;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return "probe interrupted";
        } catch (Exception e) {
            return "unreachable: " + e.getClass().getSimpleName();
        }
    }
}
