package io.orderflow.broker.server;

import static io.orderflow.broker.server.VersionedExchanges.request;
import static org.assertj.core.api.Assertions.assertThat;

import io.orderflow.broker.security.ScramMechanism;
import io.orderflow.broker.server.VersionedExchanges.Case;
import io.orderflow.broker.server.VersionedExchanges.Exchange;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import org.apache.kafka.common.acl.AclOperation;
import org.apache.kafka.common.acl.AclPermissionType;
import org.apache.kafka.common.message.AlterClientQuotasRequestData;
import org.apache.kafka.common.message.AlterUserScramCredentialsRequestData;
import org.apache.kafka.common.message.CreateAclsRequestData;
import org.apache.kafka.common.message.DeleteAclsRequestData;
import org.apache.kafka.common.message.DescribeAclsRequestData;
import org.apache.kafka.common.message.DescribeClientQuotasRequestData;
import org.apache.kafka.common.message.DescribeUserScramCredentialsRequestData;
import org.apache.kafka.common.message.SaslAuthenticateRequestData;
import org.apache.kafka.common.message.SaslHandshakeRequestData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.requests.AlterClientQuotasResponse;
import org.apache.kafka.common.requests.AlterUserScramCredentialsResponse;
import org.apache.kafka.common.requests.CreateAclsResponse;
import org.apache.kafka.common.requests.DeleteAclsResponse;
import org.apache.kafka.common.requests.DescribeAclsResponse;
import org.apache.kafka.common.requests.DescribeClientQuotasResponse;
import org.apache.kafka.common.requests.DescribeUserScramCredentialsResponse;
import org.apache.kafka.common.requests.SaslAuthenticateResponse;
import org.apache.kafka.common.requests.SaslHandshakeResponse;
import org.apache.kafka.common.resource.PatternType;
import org.apache.kafka.common.resource.ResourceType;

/**
 * The security APIs' part of {@link VersionedExchanges}, on the matrix broker's PLAINTEXT listener with the ACL
 * authorizer on and {@code User:ANONYMOUS} a super user: SCRAM credentials stored and described, client quotas
 * set and described, ACLs created, described and deleted, each at the version under test. SaslHandshake and SaslAuthenticate on a listener without
 * SASL answer {@code ILLEGAL_SASL_STATE} and keep the connection, as Kafka does; real logins at every version are
 * in {@code SaslWireTest}.
 */
final class SecurityExchanges {
    /** What the matrix broker needs for these exchanges. */
    static final Map<String, String> SETTINGS = Map.of(
            "authorizer.class.name", SecurityConfig.STANDARD_AUTHORIZER, "super.users", "User:ANONYMOUS;User:admin");

    void addTo(Map<ApiKeys, Case> cases) {
        cases.put(ApiKeys.SASL_HANDSHAKE, this::saslHandshake);
        cases.put(ApiKeys.SASL_AUTHENTICATE, this::saslAuthenticate);
        cases.put(ApiKeys.ALTER_USER_SCRAM_CREDENTIALS, this::alterUserScramCredentials);
        cases.put(ApiKeys.DESCRIBE_USER_SCRAM_CREDENTIALS, this::describeUserScramCredentials);
        cases.put(ApiKeys.CREATE_ACLS, this::createAcls);
        cases.put(ApiKeys.DESCRIBE_CLIENT_QUOTAS, this::describeClientQuotas);
        cases.put(ApiKeys.ALTER_CLIENT_QUOTAS, this::alterClientQuotas);
        cases.put(ApiKeys.DESCRIBE_ACLS, this::describeAcls);
        cases.put(ApiKeys.DELETE_ACLS, this::deleteAcls);
    }

    private static AlterClientQuotasRequestData setRate(String entityType, String name, double rate) {
        return new AlterClientQuotasRequestData()
                .setEntries(List.of(new AlterClientQuotasRequestData.EntryData()
                        .setEntity(List.of(new AlterClientQuotasRequestData.EntityData()
                                .setEntityType(entityType)
                                .setEntityName(name)))
                        .setOps(List.of(new AlterClientQuotasRequestData.OpData()
                                .setKey("producer_byte_rate")
                                .setValue(rate)))));
    }

    private List<Exchange> alterClientQuotas(short v) {
        String client = "matrix-alter-v" + v;
        var describe = new DescribeClientQuotasRequestData()
                .setComponents(List.of(new DescribeClientQuotasRequestData.ComponentData()
                        .setEntityType("client-id")
                        .setMatchType((byte) 0)
                        .setMatch(client)));
        return List.of(
                new Exchange(request(ApiKeys.ALTER_CLIENT_QUOTAS, setRate("client-id", client, 1_048_576), v), r -> {
                    var entries = ((AlterClientQuotasResponse) r).data().entries();
                    assertThat(entries).singleElement().satisfies(e -> {
                        assertThat(Errors.forCode(e.errorCode())).isEqualTo(Errors.NONE);
                        assertThat(e.entity())
                                .singleElement()
                                .satisfies(entity ->
                                        assertThat(entity.entityName()).isEqualTo(client));
                    });
                }),
                new Exchange(request(ApiKeys.DESCRIBE_CLIENT_QUOTAS, describe, (short) 0), r -> {
                    var entries = ((DescribeClientQuotasResponse) r).data().entries();
                    assertThat(entries)
                            .singleElement()
                            .satisfies(e -> assertThat(e.values())
                                    .singleElement()
                                    .satisfies(
                                            value -> assertThat(value.value()).isEqualTo(1_048_576.0)));
                }));
    }

    private List<Exchange> describeClientQuotas(short v) {
        String user = "matrix-describe-v" + v;
        var data = new DescribeClientQuotasRequestData()
                .setComponents(List.of(new DescribeClientQuotasRequestData.ComponentData()
                        .setEntityType("user")
                        .setMatchType((byte) 0)
                        .setMatch(user)));
        return List.of(
                new Exchange(request(ApiKeys.ALTER_CLIENT_QUOTAS, setRate("user", user, 2_048), (short) 0), r -> {}),
                new Exchange(request(ApiKeys.DESCRIBE_CLIENT_QUOTAS, data, v), r -> {
                    var response = ((DescribeClientQuotasResponse) r).data();
                    assertThat(Errors.forCode(response.errorCode())).isEqualTo(Errors.NONE);
                    assertThat(response.entries()).singleElement().satisfies(e -> {
                        assertThat(e.entity()).singleElement().satisfies(entity -> {
                            assertThat(entity.entityType()).isEqualTo("user");
                            assertThat(entity.entityName()).isEqualTo(user);
                        });
                        assertThat(e.values()).singleElement().satisfies(value -> {
                            assertThat(value.key()).isEqualTo("producer_byte_rate");
                            assertThat(value.value()).isEqualTo(2_048.0);
                        });
                    });
                }));
    }

    private List<Exchange> saslHandshake(short v) {
        var data = new SaslHandshakeRequestData().setMechanism("SCRAM-SHA-512");
        return List.of(new Exchange(
                request(ApiKeys.SASL_HANDSHAKE, data, v),
                r -> assertThat(Errors.forCode(
                                ((SaslHandshakeResponse) r).data().errorCode()))
                        .isEqualTo(Errors.ILLEGAL_SASL_STATE)));
    }

    private List<Exchange> saslAuthenticate(short v) {
        var data = new SaslAuthenticateRequestData().setAuthBytes("n,,n=u,r=x".getBytes(StandardCharsets.UTF_8));
        return List.of(new Exchange(
                request(ApiKeys.SASL_AUTHENTICATE, data, v),
                r -> assertThat(Errors.forCode(
                                ((SaslAuthenticateResponse) r).data().errorCode()))
                        .isEqualTo(Errors.ILLEGAL_SASL_STATE)));
    }

    private static AlterUserScramCredentialsRequestData upsert(String user) {
        byte[] salt = "matrix-salt".getBytes(StandardCharsets.UTF_8);
        byte[] salted = ScramMechanism.SCRAM_SHA_256.saltedPassword("pw".toCharArray(), salt, 4096);
        return new AlterUserScramCredentialsRequestData()
                .setUpsertions(List.of(new AlterUserScramCredentialsRequestData.ScramCredentialUpsertion()
                        .setName(user)
                        .setMechanism(ScramMechanism.SCRAM_SHA_256.type())
                        .setIterations(4096)
                        .setSalt(salt)
                        .setSaltedPassword(salted)));
    }

    private List<Exchange> alterUserScramCredentials(short v) {
        String user = "matrix-alter-v" + v;
        return List.of(new Exchange(request(ApiKeys.ALTER_USER_SCRAM_CREDENTIALS, upsert(user), v), r -> {
            var results = ((AlterUserScramCredentialsResponse) r).data().results();
            assertThat(results).singleElement().satisfies(result -> {
                assertThat(result.user()).isEqualTo(user);
                assertThat(Errors.forCode(result.errorCode())).isEqualTo(Errors.NONE);
            });
        }));
    }

    private List<Exchange> describeUserScramCredentials(short v) {
        String user = "matrix-describe-v" + v;
        var describe = new DescribeUserScramCredentialsRequestData()
                .setUsers(List.of(new DescribeUserScramCredentialsRequestData.UserName().setName(user)));
        return List.of(
                new Exchange(request(ApiKeys.ALTER_USER_SCRAM_CREDENTIALS, upsert(user), (short) 0), r -> {}),
                new Exchange(request(ApiKeys.DESCRIBE_USER_SCRAM_CREDENTIALS, describe, v), r -> {
                    var results =
                            ((DescribeUserScramCredentialsResponse) r).data().results();
                    assertThat(results).singleElement().satisfies(result -> {
                        assertThat(Errors.forCode(result.errorCode())).isEqualTo(Errors.NONE);
                        assertThat(result.credentialInfos()).singleElement().satisfies(info -> {
                            assertThat(info.mechanism()).isEqualTo(ScramMechanism.SCRAM_SHA_256.type());
                            assertThat(info.iterations()).isEqualTo(4096);
                        });
                    });
                }));
    }

    private static CreateAclsRequestData creation(String topic) {
        return new CreateAclsRequestData()
                .setCreations(List.of(new CreateAclsRequestData.AclCreation()
                        .setResourceType(ResourceType.TOPIC.code())
                        .setResourceName(topic)
                        .setResourcePatternType(PatternType.LITERAL.code())
                        .setPrincipal("User:matrix")
                        .setHost("*")
                        .setOperation(AclOperation.READ.code())
                        .setPermissionType(AclPermissionType.ALLOW.code())));
    }

    private static void created(org.apache.kafka.common.requests.AbstractResponse r) {
        assertThat(((CreateAclsResponse) r).results())
                .singleElement()
                .satisfies(result -> assertThat(Errors.forCode(result.errorCode()))
                        .as(result.errorMessage())
                        .isEqualTo(Errors.NONE));
    }

    private List<Exchange> createAcls(short v) {
        String topic = "matrix-acl-create-v" + v;
        return List.of(new Exchange(
                request(ApiKeys.CREATE_ACLS, creation(topic), v),
                r -> assertThat(((CreateAclsResponse) r).results())
                        .singleElement()
                        .satisfies(result ->
                                assertThat(Errors.forCode(result.errorCode())).isEqualTo(Errors.NONE))));
    }

    private List<Exchange> describeAcls(short v) {
        String topic = "matrix-acl-describe-v" + v;
        var filter = new DescribeAclsRequestData()
                .setResourceTypeFilter(ResourceType.TOPIC.code())
                .setResourceNameFilter(topic)
                .setPatternTypeFilter(PatternType.LITERAL.code())
                .setPrincipalFilter(null)
                .setHostFilter(null)
                .setOperation(AclOperation.ANY.code())
                .setPermissionType(AclPermissionType.ANY.code());
        return List.of(
                new Exchange(
                        request(ApiKeys.CREATE_ACLS, creation(topic), ApiKeys.CREATE_ACLS.latestVersion()),
                        SecurityExchanges::created),
                new Exchange(request(ApiKeys.DESCRIBE_ACLS, filter, v), r -> {
                    var data = ((DescribeAclsResponse) r).data();
                    assertThat(Errors.forCode(data.errorCode())).isEqualTo(Errors.NONE);
                    assertThat(data.resources()).singleElement().satisfies(resource -> {
                        assertThat(resource.resourceName()).isEqualTo(topic);
                        assertThat(resource.acls()).singleElement().satisfies(acl -> {
                            assertThat(acl.principal()).isEqualTo("User:matrix");
                            assertThat(acl.operation()).isEqualTo(AclOperation.READ.code());
                        });
                    });
                }));
    }

    private List<Exchange> deleteAcls(short v) {
        String topic = "matrix-acl-delete-v" + v;
        var filter = new DeleteAclsRequestData()
                .setFilters(List.of(new DeleteAclsRequestData.DeleteAclsFilter()
                        .setResourceTypeFilter(ResourceType.TOPIC.code())
                        .setResourceNameFilter(topic)
                        .setPatternTypeFilter(PatternType.LITERAL.code())
                        .setPrincipalFilter(null)
                        .setHostFilter(null)
                        .setOperation(AclOperation.ANY.code())
                        .setPermissionType(AclPermissionType.ANY.code())));
        return List.of(
                new Exchange(
                        request(ApiKeys.CREATE_ACLS, creation(topic), ApiKeys.CREATE_ACLS.latestVersion()),
                        SecurityExchanges::created),
                new Exchange(request(ApiKeys.DELETE_ACLS, filter, v), r -> {
                    var results = ((DeleteAclsResponse) r).filterResults();
                    assertThat(results).singleElement().satisfies(result -> {
                        assertThat(Errors.forCode(result.errorCode())).isEqualTo(Errors.NONE);
                        assertThat(result.matchingAcls())
                                .singleElement()
                                .satisfies(acl -> assertThat(acl.resourceName()).isEqualTo(topic));
                    });
                }));
    }
}
