package io.orderflow.broker.quota;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.orderflow.broker.log.LogFiles;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

class ClientQuotaStoreTest {
    @TempDir
    Path dir;

    private static Map<String, String> parts(String... typeAndName) {
        Map<String, String> parts = new HashMap<>();
        for (int i = 0; i < typeAndName.length; i += 2) {
            parts.put(typeAndName[i], typeAndName[i + 1]);
        }
        return parts;
    }

    private static ClientQuotaStore.Alteration set(Map<String, String> parts, String key, Double value) {
        Map<String, Double> changes = new HashMap<>();
        changes.put(key, value);
        return new ClientQuotaStore.Alteration(new QuotaEntity(parts), changes);
    }

    @Test
    void quotasSurviveAReopenWithDefaultsAndAnyNames() throws Exception {
        ClientQuotaStore store = ClientQuotaStore.open(dir, LogFiles.real());
        store.change(List.of(
                set(parts("client-id", "billing service"), "producer_byte_rate", 1_048_576.0),
                set(parts("user", "ålice,x:y", "client-id", null), "consumer_byte_rate", 2_000_000.0),
                set(parts("user", null), "request_percentage", 12.5)));

        ClientQuotaStore reopened = ClientQuotaStore.open(dir, LogFiles.real());

        assertThat(reopened.quotas())
                .isEqualTo(store.quotas())
                .containsEntry(
                        new QuotaEntity(parts("user", "ålice,x:y", "client-id", null)),
                        Map.of("consumer_byte_rate", 2_000_000.0))
                .containsEntry(new QuotaEntity(parts("user", null)), Map.of("request_percentage", 12.5))
                .hasSize(3);
    }

    @Test
    void removingAnEntitysLastKeyRemovesTheEntity() throws Exception {
        ClientQuotaStore store = ClientQuotaStore.open(dir, LogFiles.real());
        store.change(List.of(set(parts("client-id", "c"), "producer_byte_rate", 10.0)));
        store.change(List.of(set(parts("client-id", "c"), "producer_byte_rate", null)));

        assertThat(store.quotas()).isEmpty();
        assertThat(ClientQuotaStore.open(dir, LogFiles.real()).quotas()).isEmpty();
    }

    static List<Object[]> refusals() {
        return List.of(
                new Object[] {set(Map.of(), "producer_byte_rate", 1.0), "Invalid empty client quota entity"},
                new Object[] {
                    set(parts("group", "g"), "producer_byte_rate", 1.0), "Unhandled client quota entity type: group"
                },
                new Object[] {set(parts("user", ""), "producer_byte_rate", 1.0), "Empty user not supported"},
                new Object[] {
                    set(parts("ip", "127.0.0.1", "user", "u"), "producer_byte_rate", 1.0),
                    "Invalid quota entity combination, IP entity should not be combined with User or ClientId"
                },
                new Object[] {
                    set(parts("client-id", "c"), "fetch_byte_rate", 1.0), "Invalid configuration key fetch_byte_rate"
                },
                new Object[] {
                    set(parts("client-id", "c"), "producer_byte_rate", 0.0),
                    "Quota producer_byte_rate must be greater than 0"
                },
                new Object[] {
                    set(parts("client-id", "c"), "consumer_byte_rate", 10.5),
                    "consumer_byte_rate cannot be a fractional value."
                },
                new Object[] {
                    set(parts("client-id", "c"), "producer_byte_rate", 1e30),
                    "Proposed value for producer_byte_rate is too large for a LONG."
                },
                new Object[] {
                    set(parts("client-id", "c"), "controller_mutation_rate", 5.0),
                    "controller_mutation_rate is not enforced by this broker"
                },
                new Object[] {
                    set(parts("ip", "127.0.0.1"), "connection_creation_rate", 5.0),
                    "connection_creation_rate is not enforced by this broker"
                });
    }

    @ParameterizedTest
    @MethodSource("refusals")
    void refusesWhatKafkasControllerRefusesWithItsMessage(ClientQuotaStore.Alteration alteration, String message) {
        assertThatThrownBy(() -> ClientQuotaStore.validate(alteration))
                .isInstanceOf(InvalidQuotaException.class)
                .hasMessageStartingWith(message);
    }

    @Test
    void acceptsFractionalRequestPercentagesAndRemovalsOfAnyKey() {
        ClientQuotaStore.validate(set(parts("user", "u", "client-id", "c"), "request_percentage", 0.5));
        ClientQuotaStore.validate(set(parts("client-id", "c"), "controller_mutation_rate", null));
    }

    @Test
    void describeMatchesExactDefaultAndSpecifiedPartsStrictlyOrNot() {
        ClientQuotaStore store = ClientQuotaStore.inMemory();
        QuotaEntity alice = new QuotaEntity(parts("user", "alice"));
        QuotaEntity aliceDefaultClient = new QuotaEntity(parts("user", "alice", "client-id", null));
        QuotaEntity aliceBilling = new QuotaEntity(parts("user", "alice", "client-id", "billing"));
        QuotaEntity defaultUser = new QuotaEntity(parts("user", null));
        QuotaEntity billing = new QuotaEntity(parts("client-id", "billing"));
        for (QuotaEntity e : List.of(alice, aliceDefaultClient, aliceBilling, defaultUser, billing)) {
            store.change(List.of(new ClientQuotaStore.Alteration(e, Map.of("producer_byte_rate", 100.0))));
        }

        assertThat(store.describe(Map.of("user", "alice"), Set.of(), false).keySet())
                .containsExactlyInAnyOrder(alice, aliceDefaultClient, aliceBilling);
        assertThat(store.describe(Map.of("user", "alice"), Set.of(), true).keySet())
                .containsExactly(alice);
        Map<String, String> defaultClient = new HashMap<>();
        defaultClient.put("client-id", null);
        assertThat(store.describe(defaultClient, Set.of(), false).keySet()).containsExactly(aliceDefaultClient);
        assertThat(store.describe(Map.of(), Set.of("client-id"), false).keySet())
                .containsExactlyInAnyOrder(aliceDefaultClient, aliceBilling, billing);
        assertThat(store.describe(Map.of(), Set.of("user"), true).keySet())
                .containsExactlyInAnyOrder(alice, defaultUser);
        assertThat(store.describe(Map.of(), Set.of(), false)).hasSize(5);
    }
}
