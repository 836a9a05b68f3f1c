package io.orderflow.notification;

import io.smallrye.config.ConfigMapping;
import io.smallrye.config.WithDefault;
import java.time.Duration;

/**
 * notification-service's settings, {@code orderflow.notification-service.*} (environment:
 * {@code ORDERFLOW_NOTIFICATION_SERVICE_*}), each declared here once with its default; docs/configuration.md lists them
 * and {@code ConfigurationDocsTest} keeps the two in step. The settings every consuming service shares
 * are event-consumer's {@code orderflow.consumer.*} (ConsumerConfig). The settings every consuming service shares are
 * event-consumer's {@code orderflow.consumer.*} (ConsumerConfig). The SMTP server is Quarkus's {@code quarkus.mailer.*}.
 */
@ConfigMapping(prefix = "orderflow.notification-service")
public interface NotificationConfig {

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
}
