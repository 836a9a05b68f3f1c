package io.orderflow.broker.handler;

import io.orderflow.broker.quota.ClientQuotaStore;
import io.orderflow.broker.quota.InvalidQuotaException;
import io.orderflow.broker.quota.QuotaEntity;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.kafka.common.acl.AclOperation;
import org.apache.kafka.common.message.AlterClientQuotasRequestData;
import org.apache.kafka.common.message.AlterClientQuotasResponseData;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.requests.AbstractResponse;
import org.apache.kafka.common.requests.AlterClientQuotasRequest;
import org.apache.kafka.common.requests.AlterClientQuotasResponse;

/**
 * AlterClientQuotas ({@code kafka-configs --alter --entity-type clients|users --add-config producer_byte_rate=...}):
 * sets or removes quotas of user, client-id and user/client-id entities. Each entry stands alone, as in Kafka: an
 * entry that {@link ClientQuotaStore#validate} refuses, or that names an entity type twice or a key twice, gets
 * INVALID_REQUEST with Kafka's message and the others still apply. The accepted entries are made durable together
 * before the answer ({@code validate_only} checks and changes nothing). The new quotas apply to the next request of
 * every connection. Needs ALTER_CONFIGS on the cluster; without it every entry gets CLUSTER_AUTHORIZATION_FAILED.
 */
public final class AlterClientQuotasHandler implements ApiHandler<AlterClientQuotasRequest> {
    private final ClientQuotaStore quotas;
    private final Permissions permissions;

    public AlterClientQuotasHandler(ClientQuotaStore quotas, Permissions permissions) {
        this.quotas = quotas;
        this.permissions = permissions;
    }

    @Override
    public AbstractResponse handle(ClientInfo client, AlterClientQuotasRequest request) {
        if (!permissions.allowsCluster(client, AclOperation.ALTER_CONFIGS)) {
            return request.getErrorResponse(0, Errors.CLUSTER_AUTHORIZATION_FAILED.exception());
        }
        AlterClientQuotasResponseData response = new AlterClientQuotasResponseData();
        List<ClientQuotaStore.Alteration> accepted = new ArrayList<>();
        for (AlterClientQuotasRequestData.EntryData entry : request.data().entries()) {
            AlterClientQuotasResponseData.EntryData answer = new AlterClientQuotasResponseData.EntryData();
            entry.entity()
                    .forEach(e -> answer.entity()
                            .add(new AlterClientQuotasResponseData.EntityData()
                                    .setEntityType(e.entityType())
                                    .setEntityName(e.entityName())));
            try {
                ClientQuotaStore.Alteration alteration = alteration(entry);
                ClientQuotaStore.validate(alteration);
                if (accepted.stream().anyMatch(a -> a.entity().equals(alteration.entity()))) {
                    throw new InvalidQuotaException("Ignoring duplicate entity " + alteration.entity());
                }
                accepted.add(alteration);
                answer.setErrorCode(Errors.NONE.code());
            } catch (InvalidQuotaException e) {
                answer.setErrorCode(Errors.INVALID_REQUEST.code()).setErrorMessage(e.getMessage());
            }
            response.entries().add(answer);
        }
        if (!request.data().validateOnly() && !accepted.isEmpty()) {
            quotas.change(accepted);
        }
        return new AlterClientQuotasResponse(response);
    }

    private static ClientQuotaStore.Alteration alteration(AlterClientQuotasRequestData.EntryData entry) {
        Map<String, String> parts = new HashMap<>();
        for (AlterClientQuotasRequestData.EntityData e : entry.entity()) {
            if (parts.containsKey(e.entityType())) {
                throw new InvalidQuotaException(
                        "Invalid client quota entity, duplicate entity entry " + e.entityType());
            }
            parts.put(e.entityType(), e.entityName());
        }
        Map<String, Double> changes = new LinkedHashMap<>();
        for (AlterClientQuotasRequestData.OpData op : entry.ops()) {
            if (changes.containsKey(op.key())) {
                throw new InvalidQuotaException("Duplicate quota key " + op.key()
                        + " not updating quota for this entity " + new QuotaEntity(parts));
            }
            changes.put(op.key(), op.remove() ? null : op.value());
        }
        return new ClientQuotaStore.Alteration(new QuotaEntity(parts), changes);
    }
}
