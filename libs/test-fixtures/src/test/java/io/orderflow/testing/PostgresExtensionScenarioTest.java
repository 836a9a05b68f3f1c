package io.orderflow.testing;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.platform.engine.discovery.DiscoverySelectors.selectClass;
import static org.junit.platform.testkit.engine.EventConditions.event;
import static org.junit.platform.testkit.engine.EventConditions.finishedWithFailure;
import static org.junit.platform.testkit.engine.EventConditions.test;
import static org.junit.platform.testkit.engine.TestExecutionResultConditions.message;

import io.orderflow.postgres.PostgresDatabase;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;
import org.junit.platform.testkit.engine.EngineTestKit;
import org.junit.platform.testkit.engine.Events;

/**
 * How the fixture behaves in whole test classes: each scenario below runs in its own Jupiter engine through the
 * test kit (nested static classes are not run by surefire on their own).
 */
class PostgresExtensionScenarioTest {

    @Test
    void rejectsAnInvalidServiceNameNamingIt() {
        run(InvalidServiceName.class)
                .assertThatEvents()
                .haveExactly(
                        1,
                        finishedWithFailure(message(m -> m.contains("'Order Service'") && m.contains("[a-z0-9_-]"))));
    }

    @Test
    void asksForAServiceNameWhenNoneIsGiven() {
        run(NoServiceName.class)
                .assertThatEvents()
                .haveExactly(
                        1,
                        event(
                                test("needsADatabase"),
                                finishedWithFailure(message(m -> m.contains("@ServiceDatabase")
                                        && m.contains("'database'")
                                        && m.contains("NoServiceName.needsADatabase")))));
    }

    @Test
    void nestedClassesUseTheServiceOfTheEnclosingClass() {
        Events events = run(EnclosingClassNamesTheService.class);

        assertThat(events.failed().count()).as("failed tests").isZero();
        assertThat(events.succeeded().count()).as("succeeded tests").isEqualTo(1);
    }

    private static Events run(Class<?> scenario) {
        return EngineTestKit.engine("junit-jupiter")
                .selectors(selectClass(scenario))
                .execute()
                .testEvents();
    }

    @PostgresTest
    static class InvalidServiceName {
        @Test
        void needsADatabase(@ServiceDatabase("Order Service") PostgresDatabase database) {}
    }

    @PostgresTest
    static class NoServiceName {
        @Test
        void needsADatabase(PostgresDatabase database) {}
    }

    @PostgresTest(service = "order-service")
    static class EnclosingClassNamesTheService {
        @Nested
        class Inner {
            @Test
            void getsTheOrderServiceDatabase(PostgresDatabase database) {
                assertThat(database.databaseName()).isEqualTo("order_service");
            }
        }
    }
}
