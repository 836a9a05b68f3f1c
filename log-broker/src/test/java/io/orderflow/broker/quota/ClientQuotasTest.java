package io.orderflow.broker.quota;

import static org.assertj.core.api.Assertions.assertThat;

import io.orderflow.broker.log.ManualClock;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class ClientQuotasTest {
    private final ManualClock clock = new ManualClock(1_000_000);
    private final ClientQuotaStore store = ClientQuotaStore.inMemory();
    private final ClientQuotas quotas = new ClientQuotas(store, 11, 1_000, clock);

    private void set(String user, String clientId, boolean withUser, boolean withClient, QuotaType type, double v) {
        Map<String, String> parts = new HashMap<>();
        if (withUser) {
            parts.put(QuotaEntity.USER, user);
        }
        if (withClient) {
            parts.put(QuotaEntity.CLIENT_ID, clientId);
        }
        store.change(List.of(new ClientQuotaStore.Alteration(new QuotaEntity(parts), Map.of(type.key(), v))));
    }

    /** Kafka's eight levels, most specific first: each set with its own bound, removed from the top one by one. */
    @Test
    void theMostSpecificQuotaAppliesInKafkasOrder() {
        record Level(
                String user,
                String clientId,
                boolean withUser,
                boolean withClient,
                String rateUser,
                String rateClient) {}
        List<Level> levels = List.of(
                new Level("alice", "billing", true, true, "alice", "billing"),
                new Level("alice", null, true, true, "alice", "billing"),
                new Level("alice", null, true, false, "alice", ""),
                new Level(null, "billing", true, true, "alice", "billing"),
                new Level(null, null, true, true, "alice", "billing"),
                new Level(null, null, true, false, "alice", ""),
                new Level(null, "billing", false, true, "", "billing"),
                new Level(null, null, false, true, "", "billing"));
        for (int i = 0; i < levels.size(); i++) {
            Level l = levels.get(i);
            set(l.user(), l.clientId(), l.withUser(), l.withClient(), QuotaType.PRODUCE, 1_000 + i);
        }
        List<ClientQuotas.Limit> seen = new ArrayList<>();
        for (int i = 0; i < levels.size(); i++) {
            seen.add(quotas.limit(QuotaType.PRODUCE, "alice", "billing"));
            Level l = levels.get(i);
            Map<String, String> parts = new HashMap<>();
            if (l.withUser()) {
                parts.put(QuotaEntity.USER, l.user());
            }
            if (l.withClient()) {
                parts.put(QuotaEntity.CLIENT_ID, l.clientId());
            }
            Map<String, Double> remove = new HashMap<>();
            remove.put(QuotaType.PRODUCE.key(), null);
            store.change(List.of(new ClientQuotaStore.Alteration(new QuotaEntity(parts), remove)));
        }
        List<ClientQuotas.Limit> expected = new ArrayList<>();
        for (int i = 0; i < levels.size(); i++) {
            expected.add(new ClientQuotas.Limit(
                    1_000 + i, levels.get(i).rateUser(), levels.get(i).rateClient()));
        }
        assertThat(seen).isEqualTo(expected);
        assertThat(quotas.limit(QuotaType.PRODUCE, "alice", "billing")).isNull();
    }

    @Test
    void eachQuotaTypeIsResolvedOnItsOwn() {
        set("alice", null, true, false, QuotaType.PRODUCE, 100);
        set(null, "billing", false, true, QuotaType.FETCH, 200);

        assertThat(quotas.limit(QuotaType.PRODUCE, "alice", "billing"))
                .isEqualTo(new ClientQuotas.Limit(100, "alice", ""));
        assertThat(quotas.limit(QuotaType.FETCH, "alice", "billing"))
                .isEqualTo(new ClientQuotas.Limit(200, "", "billing"));
        assertThat(quotas.limit(QuotaType.REQUEST, "alice", "billing")).isNull();
    }

    @Test
    void clientsOfOneUserShareTheUsersQuota() {
        set("alice", null, true, false, QuotaType.PRODUCE, 1_000);

        assertThat(quotas.chargeProduce("alice", "one", 10_000)).isZero();
        // 11,000 bytes in the ten windows assumed for a new rate: 10 % over, so a second's wait, whoever sends it.
        assertThat(quotas.chargeProduce("alice", "two", 1_000)).isEqualTo(1_000);
        assertThat(quotas.chargeProduce("bob", "one", 1_000_000)).isZero();
        assertThat(quotas.throttledResponses(QuotaType.PRODUCE)).isEqualTo(1);
        assertThat(quotas.throttleMillis(QuotaType.PRODUCE)).isEqualTo(1_000);
    }

    @Test
    void withADefaultClientIdQuotaEachClientIdHasARateOfItsOwn() {
        set(null, null, false, true, QuotaType.PRODUCE, 1_000);

        assertThat(quotas.chargeProduce("ANONYMOUS", "one", 10_000)).isZero();
        assertThat(quotas.chargeProduce("ANONYMOUS", "two", 10_000)).isZero();
        assertThat(quotas.chargeProduce("ANONYMOUS", "one", 1_000)).isEqualTo(1_000);
    }

    @Test
    void aFetchIsCappedToWhatTheQuotaAllowsAndAThrottledOneIsNotCharged() {
        assertThat(quotas.maxFetchBytes("u", "c")).isEqualTo(Integer.MAX_VALUE);
        set(null, "c", false, true, QuotaType.FETCH, 1_000);
        assertThat(quotas.maxFetchBytes("u", "c")).isEqualTo(10_000);

        assertThat(quotas.chargeFetch("u", "c", 10_000)).isZero();
        int throttle = quotas.chargeFetch("u", "c", 5_000);
        assertThat(throttle).isEqualTo(5_000);
        // The refused 5,000 bytes were taken back: the rate is at its bound again, not 50 % over it.
        assertThat(quotas.chargeFetch("u", "c", 0)).isZero();
    }

    @Test
    void aRequestTimeThrottleIsAtMostOneWindow() {
        set(null, "c", false, true, QuotaType.REQUEST, 1.0);

        // Ten seconds of handling against 1 % of a thread: far over, but the wait is capped at the 1 s window.
        assertThat(quotas.chargeRequestTime("u", "c", 10_000_000_000L)).isEqualTo(1_000);
        assertThat(quotas.enforces(QuotaType.REQUEST)).isTrue();
        assertThat(quotas.enforces(QuotaType.PRODUCE)).isFalse();
    }

    @Test
    void aClientWithoutAQuotaIsNeverThrottled() {
        set(null, "limited", false, true, QuotaType.PRODUCE, 1);

        assertThat(quotas.chargeProduce("u", "free", Long.MAX_VALUE / 2)).isZero();
        assertThat(quotas.chargeFetch("u", "free", Long.MAX_VALUE / 2)).isZero();
        assertThat(quotas.chargeRequestTime("u", "free", Long.MAX_VALUE / 2)).isZero();
    }
}
