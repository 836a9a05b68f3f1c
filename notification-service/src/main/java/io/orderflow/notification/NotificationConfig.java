package io.orderflow.notification;

import io.smallrye.config.ConfigMapping;
import io.smallrye.config.WithDefault;
import java.time.Duration;

/**
 * notification-service's settings, {@code orderflow.notification-service.*} (environment:
 * {@code ORDERFLOW_NOTIFICATION_SERVICE_*}), each declared here once with its default; docs/configuration.md lists them
 * and {@code ConfigurationDocsTest} keeps the two in step. The settings every consuming service shares are
 * event-consumer's {@code orderflow.consumer.*} (ConsumerConfig). The SMTP server, and the mailer's connection pool, are
 * Quarkus's {@code quarkus.mailer.*}.
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
     * Mails an instance claims and sends at once (SMTP transactions in flight, then marked sent in one transaction):
     * also the most that a crash of the instance can send twice. 64 on the pool's 32 connections sent 642 mails a
     * second where 16 on Quarkus's default 10 sent 315-436 (notification-service/README.md, "The SMTP connection").
     */
    @WithDefault("64")
    int sendConcurrency();

    /**
     * How long a claimed mail stays an instance's: no other instance sends it meanwhile. Sends get half of it, so that
     * the mark lands within it. When an instance dies, its claimed mails wait this long before another sends them.
     */
    @WithDefault("2m")
    Duration sendLease();

    /** The longest wait between attempts while the SMTP server refuses or is away (it doubles from 500 ms). */
    @WithDefault("30s")
    Duration sendBackoffMax();
}
