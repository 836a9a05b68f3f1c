package io.orderflow.notification;

import io.smallrye.config.ConfigMapping;
import io.smallrye.config.WithDefault;
import java.time.Duration;
import java.util.List;

/**
 * notification-service's settings, {@code orderflow.notification-service.*} (environment:
 * {@code ORDERFLOW_NOTIFICATION_SERVICE_*}), each declared here once with its default; docs/configuration.md lists them
 * and {@code ConfigurationDocsTest} keeps the two in step. The SMTP server is Quarkus's {@code quarkus.mailer.*}.
 */
@ConfigMapping(prefix = "orderflow.notification-service")
public interface NotificationConfig {

    /** How long a failed event waits before each retry; one retry per entry, then the dead-letter topic. */
    @WithDefault("1s,10s,60s")
    List<Duration> retryDelays();

    /** Partitions of the retry and dead-letter topics the service creates at start if they are missing. */
    @WithDefault("3")
    int failureTopicPartitions();

    /** Mails go to {@code <customerId>@<recipient-domain>}: the platform has no customer directory. */
    @WithDefault("customers.orderflow.test")
    String recipientDomain();

    /** How long the sender waits for new mails when none is pending. */
    @WithDefault("200ms")
    Duration sendPollInterval();

    /**
     * Mails sent at once (SMTP transactions in flight, then marked sent in one transaction): also the most that a crash
     * can send twice.
     */
    @WithDefault("16")
    int sendConcurrency();

    /** The longest wait between attempts while the SMTP server refuses or is away (it doubles from 500 ms). */
    @WithDefault("30s")
    Duration sendBackoffMax();

    /**
     * Whether the service takes the drills' switches ({@code PUT /drills/slowdown}); off, they answer 404. {@code
     * ./run-platform} and docker compose turn it on: they are the platform the drills run against.
     */
    @WithDefault("false")
    boolean drillsEnabled();
}
