package io.orderflow.ops.bench.platform;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class PendingMailsSamplerTest {

    @Test
    void readsTheNotificationServicesOwnGaugeOfPendingMails() {
        String exposition = """
                # HELP orderflow_notifications_pending Mails written and not yet sent
                # TYPE orderflow_notifications_pending gauge
                orderflow_notifications_pending 1234.0
                # TYPE orderflow_notifications_sent_total counter
                orderflow_notifications_sent_total 99.0
                """;

        assertThat(PendingMailsSampler.pending(exposition)).hasValue(1234);
        assertThat(PendingMailsSampler.pending("orderflow_notifications_sent_total 99.0\n"))
                .isEmpty();
    }
}
