package io.orderflow.broker.handler;

import io.orderflow.broker.quota.ClientQuotaStore;
import io.orderflow.broker.quota.QuotaEntity;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Map;
import java.util.Set;
import org.apache.kafka.common.acl.AclOperation;
import org.apache.kafka.common.message.DescribeClientQuotasRequestData;
import org.apache.kafka.common.message.DescribeClientQuotasResponseData;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.requests.AbstractResponse;
import org.apache.kafka.common.requests.DescribeClientQuotasRequest;
import org.apache.kafka.common.requests.DescribeClientQuotasResponse;

/**
 * DescribeClientQuotas ({@code kafka-configs --describe --entity-type clients|users}): the quotas of every entity
 * that matches the filter, matched as Apache Kafka matches them ({@link ClientQuotaStore#describe}). A filter Kafka
 * refuses is refused with its error: INVALID_REQUEST for an empty or repeated entity type, a match string where the
 * match type takes none (or none where it needs one), an unknown match type, or IP mixed with user or client id;
 * UNSUPPORTED_VERSION for an entity type other than user, client-id and ip. Needs DESCRIBE_CONFIGS on the cluster.
 */
public final class DescribeClientQuotasHandler implements ApiHandler<DescribeClientQuotasRequest> {
    private final ClientQuotaStore quotas;
    private final Permissions permissions;

    public DescribeClientQuotasHandler(ClientQuotaStore quotas, Permissions permissions) {
        this.quotas = quotas;
        this.permissions = permissions;
    }

    /** A filter the protocol's rules refuse, with the error code Kafka answers it with. */
    private static final class RefusedFilter extends RuntimeException {
        final Errors error;

        RefusedFilter(Errors error, String message) {
            super(message);
            this.error = error;
        }
    }

    @Override
    public AbstractResponse handle(ClientInfo client, DescribeClientQuotasRequest request) {
        DescribeClientQuotasResponseData data = new DescribeClientQuotasResponseData();
        if (!permissions.allowsCluster(client, AclOperation.DESCRIBE_CONFIGS)) {
            return refused(data, Errors.CLUSTER_AUTHORIZATION_FAILED, Errors.CLUSTER_AUTHORIZATION_FAILED.message());
        }
        Map<String, String> exact = new HashMap<>();
        Set<String> specified = new HashSet<>();
        try {
            read(request.data(), exact, specified);
        } catch (RefusedFilter e) {
            return refused(data, e.error, e.getMessage());
        }
        quotas.describe(exact, specified, request.data().strict()).forEach((entity, values) -> {
            DescribeClientQuotasResponseData.EntryData entry = new DescribeClientQuotasResponseData.EntryData();
            entity.parts()
                    .forEach((type, name) -> entry.entity()
                            .add(new DescribeClientQuotasResponseData.EntityData()
                                    .setEntityType(type)
                                    .setEntityName(name)));
            values.forEach((key, value) -> entry.values()
                    .add(new DescribeClientQuotasResponseData.ValueData()
                            .setKey(key)
                            .setValue(value)));
            data.entries().add(entry);
        });
        return new DescribeClientQuotasResponse(data.setErrorCode(Errors.NONE.code()));
    }

    private static void read(DescribeClientQuotasRequestData filter, Map<String, String> exact, Set<String> specified) {
        for (DescribeClientQuotasRequestData.ComponentData c : filter.components()) {
            String type = c.entityType();
            if (type == null || type.isEmpty()) {
                throw new RefusedFilter(Errors.INVALID_REQUEST, "Invalid empty entity type.");
            }
            if (exact.containsKey(type) || specified.contains(type)) {
                throw new RefusedFilter(
                        Errors.INVALID_REQUEST, "Entity type " + type + " cannot appear more than once in the filter.");
            }
            if (!type.equals(QuotaEntity.USER) && !type.equals(QuotaEntity.CLIENT_ID) && !type.equals(QuotaEntity.IP)) {
                throw new RefusedFilter(Errors.UNSUPPORTED_VERSION, "Unsupported entity type " + type);
            }
            switch (c.matchType()) {
                case 0 -> { // exact
                    if (c.match() == null) {
                        throw new RefusedFilter(
                                Errors.INVALID_REQUEST,
                                "Request specified MATCH_TYPE_EXACT, but set match string to null.");
                    }
                    exact.put(type, c.match());
                }
                case 1 -> { // the default
                    if (c.match() != null) {
                        throw new RefusedFilter(
                                Errors.INVALID_REQUEST,
                                "Request specified MATCH_TYPE_DEFAULT, but also specified a match string.");
                    }
                    exact.put(type, null);
                }
                case 2 -> { // any name
                    if (c.match() != null) {
                        throw new RefusedFilter(
                                Errors.INVALID_REQUEST,
                                "Request specified MATCH_TYPE_SPECIFIED, but also specified a match string.");
                    }
                    specified.add(type);
                }
                default -> throw new RefusedFilter(Errors.INVALID_REQUEST, "Unknown match type " + c.matchType());
            }
        }
        boolean ip = exact.containsKey(QuotaEntity.IP) || specified.contains(QuotaEntity.IP);
        if (ip && exact.size() + specified.size() > 1) {
            throw new RefusedFilter(
                    Errors.INVALID_REQUEST,
                    "Invalid entity filter component combination. IP filter component should not be used with user"
                            + " or clientId filter component.");
        }
    }

    private static DescribeClientQuotasResponse refused(
            DescribeClientQuotasResponseData data, Errors error, String message) {
        return new DescribeClientQuotasResponse(
                data.setErrorCode(error.code()).setErrorMessage(message).setEntries(null));
    }
}
