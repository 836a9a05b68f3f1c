package io.orderflow.broker.handler;

import io.orderflow.broker.security.CredentialStore;
import io.orderflow.broker.security.ScramCredential;
import io.orderflow.broker.security.ScramMechanism;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import org.apache.kafka.common.acl.AclOperation;
import org.apache.kafka.common.message.AlterUserScramCredentialsRequestData;
import org.apache.kafka.common.message.AlterUserScramCredentialsResponseData;
import org.apache.kafka.common.message.AlterUserScramCredentialsResponseData.AlterUserScramCredentialsResult;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.requests.AbstractResponse;
import org.apache.kafka.common.requests.AlterUserScramCredentialsRequest;
import org.apache.kafka.common.requests.AlterUserScramCredentialsResponse;

/**
 * AlterUserScramCredentials: adds, replaces and deletes users' SCRAM credentials ({@code kafka-configs --alter
 * --entity-type users --add-config 'SCRAM-SHA-512=[password=...]'}). The client sends the salt and the salted
 * password, never the password; the store keeps only the stored and server keys derived from them.
 *
 * <p>Needs ALTER on the cluster. Per user, as Kafka answers: an unknown mechanism is UNSUPPORTED_SASL_MECHANISM;
 * an empty name, an iteration count outside 4096..16384 or an empty salt or salted password is
 * UNACCEPTABLE_CREDENTIAL; the same user and mechanism twice in one request is DUPLICATE_RESOURCE; deleting a
 * credential that does not exist is RESOURCE_NOT_FOUND. A user with any error has none of its changes applied;
 * the others' are applied and durable before the answer.
 */
public final class AlterUserScramCredentialsHandler implements ApiHandler<AlterUserScramCredentialsRequest> {
    private final CredentialStore credentials;
    private final Permissions permissions;

    public AlterUserScramCredentialsHandler(CredentialStore credentials, Permissions permissions) {
        this.credentials = credentials;
        this.permissions = permissions;
    }

    private record Problem(Errors error, String message) {}

    @Override
    public AbstractResponse handle(ClientInfo client, AlterUserScramCredentialsRequest request) {
        AlterUserScramCredentialsRequestData data = request.data();
        Map<String, Problem> problems = new LinkedHashMap<>();
        Set<String> users = new java.util.LinkedHashSet<>();
        data.deletions().forEach(d -> users.add(d.name()));
        data.upsertions().forEach(u -> users.add(u.name()));
        if (!permissions.allowsCluster(client, AclOperation.ALTER)) {
            return answer(users, problems, new Problem(Errors.CLUSTER_AUTHORIZATION_FAILED, null));
        }
        Set<String> seen = new HashSet<>();
        List<CredentialStore.Deletion> deletions = new ArrayList<>();
        List<CredentialStore.ScramCredentialUpsert> upserts = new ArrayList<>();
        for (var d : data.deletions()) {
            Optional<ScramMechanism> mechanism = ScramMechanism.forType(d.mechanism());
            Problem p = check(d.name(), mechanism, seen);
            if (p == null && credentials.credential(d.name(), mechanism.get()).isEmpty()) {
                p = new Problem(Errors.RESOURCE_NOT_FOUND, "Attempt to delete a user credential that does not exist");
            }
            if (p != null) {
                problems.putIfAbsent(d.name(), p);
            } else {
                deletions.add(new CredentialStore.Deletion(d.name(), mechanism.get()));
            }
        }
        for (var u : data.upsertions()) {
            Optional<ScramMechanism> mechanism = ScramMechanism.forType(u.mechanism());
            Problem p = check(u.name(), mechanism, seen);
            if (p == null && u.iterations() < ScramMechanism.MIN_ITERATIONS) {
                p = new Problem(Errors.UNACCEPTABLE_CREDENTIAL, "Too few iterations");
            } else if (p == null && u.iterations() > ScramMechanism.MAX_ITERATIONS) {
                p = new Problem(Errors.UNACCEPTABLE_CREDENTIAL, "Too many iterations");
            } else if (p == null && (u.salt().length == 0 || u.saltedPassword().length == 0)) {
                p = new Problem(Errors.UNACCEPTABLE_CREDENTIAL, "Empty salt or salted password");
            }
            if (p != null) {
                problems.putIfAbsent(u.name(), p);
            } else {
                upserts.add(new CredentialStore.ScramCredentialUpsert(
                        u.name(),
                        ScramCredential.fromSaltedPassword(
                                mechanism.get(), u.salt(), u.iterations(), u.saltedPassword())));
            }
        }
        credentials.change(
                deletions.stream().filter(d -> !problems.containsKey(d.user())).toList(),
                upserts.stream().filter(u -> !problems.containsKey(u.user())).toList());
        return answer(users, problems, null);
    }

    private static Problem check(String user, Optional<ScramMechanism> mechanism, Set<String> seen) {
        if (user == null || user.isEmpty()) {
            return new Problem(Errors.UNACCEPTABLE_CREDENTIAL, "Username must not be empty");
        }
        if (mechanism.isEmpty()) {
            return new Problem(Errors.UNSUPPORTED_SASL_MECHANISM, "Unknown SCRAM mechanism");
        }
        if (!seen.add(user + "\0" + mechanism.get())) {
            return new Problem(
                    Errors.DUPLICATE_RESOURCE, "A user credential cannot be altered twice in the same request");
        }
        return null;
    }

    private static AlterUserScramCredentialsResponse answer(
            Set<String> users, Map<String, Problem> problems, Problem forAll) {
        AlterUserScramCredentialsResponseData response = new AlterUserScramCredentialsResponseData();
        for (String user : users) {
            Problem p = forAll != null ? forAll : problems.get(user);
            response.results()
                    .add(new AlterUserScramCredentialsResult()
                            .setUser(user)
                            .setErrorCode(
                                    p == null ? Errors.NONE.code() : p.error().code())
                            .setErrorMessage(p == null ? null : p.message()));
        }
        return new AlterUserScramCredentialsResponse(response);
    }
}
