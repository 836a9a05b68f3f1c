package io.orderflow.broker.handler;

import io.orderflow.broker.security.CredentialStore;
import io.orderflow.broker.security.ScramCredential;
import io.orderflow.broker.security.ScramMechanism;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.kafka.common.acl.AclOperation;
import org.apache.kafka.common.message.DescribeUserScramCredentialsResponseData;
import org.apache.kafka.common.message.DescribeUserScramCredentialsResponseData.CredentialInfo;
import org.apache.kafka.common.message.DescribeUserScramCredentialsResponseData.DescribeUserScramCredentialsResult;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.requests.AbstractResponse;
import org.apache.kafka.common.requests.DescribeUserScramCredentialsRequest;
import org.apache.kafka.common.requests.DescribeUserScramCredentialsResponse;

/**
 * DescribeUserScramCredentials: which SCRAM mechanisms each user has, with their iteration counts (never a salt
 * or key). No users named (null or empty) means every user. Needs DESCRIBE on the cluster
 * (CLUSTER_AUTHORIZATION_FAILED for the whole request); an unknown user is RESOURCE_NOT_FOUND, a user named twice
 * DUPLICATE_RESOURCE.
 */
public final class DescribeUserScramCredentialsHandler implements ApiHandler<DescribeUserScramCredentialsRequest> {
    private final CredentialStore credentials;
    private final Permissions permissions;

    public DescribeUserScramCredentialsHandler(CredentialStore credentials, Permissions permissions) {
        this.credentials = credentials;
        this.permissions = permissions;
    }

    @Override
    public AbstractResponse handle(ClientInfo client, DescribeUserScramCredentialsRequest request) {
        DescribeUserScramCredentialsResponseData response = new DescribeUserScramCredentialsResponseData();
        if (!permissions.allowsCluster(client, AclOperation.DESCRIBE)) {
            return new DescribeUserScramCredentialsResponse(
                    response.setErrorCode(Errors.CLUSTER_AUTHORIZATION_FAILED.code())
                            .setErrorMessage(Errors.CLUSTER_AUTHORIZATION_FAILED.message()));
        }
        Map<String, Map<ScramMechanism, ScramCredential>> all = credentials.users();
        var named = request.data().users();
        if (named == null || named.isEmpty()) {
            all.forEach((user, creds) -> response.results().add(result(user, creds)));
            return new DescribeUserScramCredentialsResponse(response);
        }
        Set<String> seen = new HashSet<>();
        Set<String> duplicates = new HashSet<>();
        named.forEach(u -> {
            if (!seen.add(u.name())) {
                duplicates.add(u.name());
            }
        });
        Set<String> answered = new HashSet<>();
        for (var u : named) {
            String user = u.name();
            if (!answered.add(user)) {
                continue;
            }
            if (duplicates.contains(user)) {
                response.results()
                        .add(new DescribeUserScramCredentialsResult()
                                .setUser(user)
                                .setErrorCode(Errors.DUPLICATE_RESOURCE.code())
                                .setErrorMessage("Cannot describe SCRAM credentials for the same user twice"));
            } else if (!all.containsKey(user)) {
                response.results()
                        .add(new DescribeUserScramCredentialsResult()
                                .setUser(user)
                                .setErrorCode(Errors.RESOURCE_NOT_FOUND.code())
                                .setErrorMessage("Attempt to describe a user credential that does not exist"));
            } else {
                response.results().add(result(user, all.get(user)));
            }
        }
        return new DescribeUserScramCredentialsResponse(response);
    }

    private static DescribeUserScramCredentialsResult result(
            String user, Map<ScramMechanism, ScramCredential> credentials) {
        List<CredentialInfo> infos = credentials.values().stream()
                .map(c ->
                        new CredentialInfo().setMechanism(c.mechanism().type()).setIterations(c.iterations()))
                .toList();
        return new DescribeUserScramCredentialsResult()
                .setUser(user)
                .setErrorCode(Errors.NONE.code())
                .setCredentialInfos(new java.util.ArrayList<>(infos));
    }
}
