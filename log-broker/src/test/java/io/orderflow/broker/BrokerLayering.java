package io.orderflow.broker;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;
import static com.tngtech.archunit.library.Architectures.layeredArchitecture;

import com.tngtech.archunit.lang.ArchRule;

/**
 * The broker's layers, as rules over a root package so that they can be checked against the real code and,
 * to prove they bite, against a deliberately wrong sample.
 *
 * <pre>
 * server -> network -> handler -> txn -> group -> log
 *           protocol (codec, no I/O) used by network and handler
 *           security (principals, logins, credentials, ACLs) used by server, network and handler; stores its
 *           files through log's LogFiles
 * </pre>
 *
 * Storage ({@code log}) never imports network, handler, protocol, group or server code, nor sockets.
 */
final class BrokerLayering {
    private BrokerLayering() {}

    static ArchRule layers(String root) {
        return layeredArchitecture()
                .consideringOnlyDependenciesInLayers()
                .withOptionalLayers(true)
                .layer("Server")
                .definedBy(root + ".server..")
                .layer("Network")
                .definedBy(root + ".network..")
                .layer("Handler")
                .definedBy(root + ".handler..")
                .layer("Protocol")
                .definedBy(root + ".protocol..")
                .layer("Security")
                .definedBy(root + ".security..")
                .layer("Transactions")
                .definedBy(root + ".txn..")
                .layer("Group")
                .definedBy(root + ".group..")
                .layer("Storage")
                .definedBy(root + ".log..")
                .whereLayer("Server")
                .mayNotBeAccessedByAnyLayer()
                .whereLayer("Network")
                .mayOnlyBeAccessedByLayers("Server")
                .whereLayer("Handler")
                .mayOnlyBeAccessedByLayers("Network", "Server")
                .whereLayer("Protocol")
                .mayOnlyBeAccessedByLayers("Network", "Handler", "Server")
                .whereLayer("Security")
                .mayOnlyBeAccessedByLayers("Network", "Handler", "Server")
                .whereLayer("Transactions")
                .mayOnlyBeAccessedByLayers("Handler", "Server")
                .whereLayer("Group")
                .mayOnlyBeAccessedByLayers("Transactions", "Handler", "Server")
                .whereLayer("Storage")
                .mayOnlyBeAccessedByLayers("Transactions", "Group", "Handler", "Security", "Server");
    }

    static ArchRule storageHasNoNetworkCode(String root) {
        return noClasses()
                .that()
                .resideInAPackage(root + ".log..")
                .should()
                .dependOnClassesThat()
                .resideInAnyPackage(
                        root + ".network..",
                        root + ".handler..",
                        root + ".protocol..",
                        root + ".server..",
                        "java.net..",
                        "org.apache.kafka.common.network..",
                        "org.apache.kafka.common.requests..")
                .allowEmptyShould(true);
    }
}
