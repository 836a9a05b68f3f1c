package io.orderflow.platform;

import static org.assertj.core.api.Assertions.assertThat;

import io.orderflow.consumer.RetryTopics;
import java.time.Duration;
import java.util.List;
import org.apache.kafka.common.acl.AclBinding;
import org.apache.kafka.common.acl.AclOperation;
import org.apache.kafka.common.resource.PatternType;
import org.junit.jupiter.api.Test;

class PlatformPrincipalsTest {

    @Test
    void theConsumersAclsNameTheTopicsEventConsumerCreates() {
        for (String group : PlatformPrincipals.CONSUMERS) {
            RetryTopics topics = RetryTopics.of(group, List.of(Duration.ofSeconds(1), Duration.ofSeconds(10)));

            assertThat(topics.retryTopicNames())
                    .allMatch(name -> name.startsWith(PlatformPrincipals.retryPrefix(group)));
            assertThat(PlatformPrincipals.deadLetterTopic(group)).isEqualTo(topics.deadLetterTopic());
            assertThat(PlatformPrincipals.redriveLogTopic(group)).isEqualTo(topics.redriveLogTopic());
        }
    }

    @Test
    void onlyTheRelaysTheLoadAndTheDrillsMayWriteOrders() {
        List<String> writers = PlatformPrincipals.acls().stream()
                .filter(acl -> acl.pattern().name().equals("orders")
                        && acl.pattern().patternType() == PatternType.LITERAL
                        && acl.entry().operation() == AclOperation.WRITE)
                .map(acl -> acl.entry().principal())
                .toList();

        assertThat(writers).containsExactlyInAnyOrder("User:outbox-relay", "User:ops-load", "User:ops-drills");
    }

    @Test
    void theSagaReadsInventoryInItsOwnGroupAndWritesOnlyItsRetryAndDeadLetterTopics() {
        List<String> sagas = PlatformPrincipals.acls().stream()
                .filter(acl -> acl.entry().principal().equals("User:order-service"))
                .map(acl -> acl.entry().operation() + " " + acl.pattern().resourceType() + " "
                        + acl.pattern().name() + " " + acl.pattern().patternType())
                .toList();

        assertThat(sagas)
                .containsExactlyInAnyOrder(
                        "READ TOPIC inventory LITERAL",
                        "READ GROUP order-service LITERAL",
                        "CREATE TOPIC order-service_retry_ PREFIXED",
                        "WRITE TOPIC order-service_retry_ PREFIXED",
                        "READ TOPIC order-service_retry_ PREFIXED",
                        "CREATE TOPIC dead-letter-topic-order-service LITERAL",
                        "WRITE TOPIC dead-letter-topic-order-service LITERAL");
    }

    @Test
    void noPrincipalButTheAdministratorMayDeleteOrAlterAnything() {
        assertThat(PlatformPrincipals.acls())
                .extracting((AclBinding acl) -> acl.entry().operation())
                .doesNotContain(AclOperation.ALL, AclOperation.DELETE, AclOperation.ALTER, AclOperation.ALTER_CONFIGS);
        assertThat(PlatformPrincipals.acls())
                .noneMatch(acl -> acl.entry().principal().equals("User:admin"));
    }
}
