package io.orderflow.architecture;

import static com.tngtech.archunit.base.DescribedPredicate.not;
import static com.tngtech.archunit.core.domain.JavaClass.Predicates.resideInAPackage;
import static com.tngtech.archunit.core.domain.JavaClass.Predicates.resideInAnyPackage;
import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;
import static com.tngtech.archunit.library.dependencies.SlicesRuleDefinition.slices;

import com.tngtech.archunit.lang.ArchRule;
import java.util.ArrayList;
import java.util.List;

/**
 * The layers of the tree, as rules over packages under a root ({@code io.orderflow} for the code, a sample root for
 * the test that proves each rule can fail). Each module has its own top package, so a package rule is a module rule:
 *
 * <pre>
 *   ops           lag, platform, ops.load  <-  ops.drill, ops.bench,               (drills and benchmarks never use each other)
 *                                              ops.redrive, ops.replay, ops.admin  (the operator commands)
 *                                              ops.backup                          (backup and restore)
 *                                              ops.powercut                        (whole-platform drills: uses ops.drill, ops.backup)
 *   services      orders, relay, inventory, notification, analytics                (no service uses another, or the broker)
 *   broker        broker                                                           (uses none of ours)
 *   proofs        hostileframes                                                    (reach a broker over TCP only)
 *   test fixtures testing                                                          (may use the broker: it starts one)
 *   libraries     contracts, outbox, consumer, kafka, process, postgres, backoff, property, frames
 * </pre>
 *
 * A layer may use the layers below it only, and no two top packages may depend on each other in a cycle.
 */
final class ModuleLayering {
    static final List<String> LIBRARIES =
            List.of("contracts", "outbox", "consumer", "kafka", "process", "postgres", "backoff", "property", "frames");
    /** What proves the broker from outside, packaged: it starts brokers as processes and speaks to them over TCP. */
    static final List<String> PROOFS = List.of("hostileframes");

    static final List<String> SERVICES = List.of("orders", "relay", "inventory", "notification", "analytics");
    static final List<String> OPS = List.of("lag", "platform", "ops");

    private ModuleLayering() {}

    /** Every rule, for the given root package. */
    static List<ArchRule> rules(String root) {
        List<ArchRule> rules = new ArrayList<>();
        rules.add(librariesUseNoModuleAbove(root));
        rules.add(brokerUsesNoneOfOurs(root));
        rules.add(servicesSpeakOnlyTheProtocol(root));
        rules.add(proofsSpeakOnlyTheProtocol(root));
        rules.addAll(servicesUseNoOtherService(root));
        rules.add(nothingBelowOpsUsesOps(root));
        rules.add(loadToolkitUsesNoDrillOrBenchmark(root));
        rules.add(drillsUseNoBenchmark(root));
        rules.add(benchmarksUseNoDrill(root));
        rules.add(topPackagesAreFreeOfCycles(root));
        rules.add(opsPackagesAreFreeOfCycles(root));
        return rules;
    }

    static ArchRule librariesUseNoModuleAbove(String root) {
        List<String> above = new ArrayList<>(List.of("broker", "testing"));
        above.addAll(PROOFS);
        above.addAll(SERVICES);
        above.addAll(OPS);
        return noClasses()
                .that(resideInAnyPackage(packages(root, LIBRARIES)))
                .should()
                .dependOnClassesThat(resideInAnyPackage(packages(root, above)))
                .as("libraries use no broker, test fixture, service or ops code");
    }

    static ArchRule brokerUsesNoneOfOurs(String root) {
        return noClasses()
                .that(resideInAPackage(root + ".broker.."))
                .should()
                .dependOnClassesThat(resideInAPackage(root + "..").and(not(resideInAPackage(root + ".broker.."))))
                .as("the broker uses none of our other code: clients reach it only over the Kafka protocol");
    }

    static ArchRule servicesSpeakOnlyTheProtocol(String root) {
        List<String> forbidden = new ArrayList<>(List.of("broker", "testing"));
        forbidden.addAll(OPS);
        return noClasses()
                .that(resideInAnyPackage(packages(root, SERVICES)))
                .should()
                .dependOnClassesThat(resideInAnyPackage(packages(root, forbidden)))
                .as("services use no broker, test fixture or ops code: they speak only the Kafka protocol");
    }

    static ArchRule proofsSpeakOnlyTheProtocol(String root) {
        List<String> forbidden = new ArrayList<>(List.of("broker", "testing"));
        forbidden.addAll(SERVICES);
        forbidden.addAll(OPS);
        return noClasses()
                .that(resideInAnyPackage(packages(root, PROOFS)))
                .should()
                .dependOnClassesThat(resideInAnyPackage(packages(root, forbidden)))
                .as("the broker's proofs use no broker, test fixture, service or ops code: they start a broker as a"
                        + " process and reach it over TCP");
    }

    static List<ArchRule> servicesUseNoOtherService(String root) {
        List<ArchRule> rules = new ArrayList<>();
        for (String service : SERVICES) {
            List<String> others =
                    SERVICES.stream().filter(other -> !other.equals(service)).toList();
            rules.add(noClasses()
                    .that(resideInAPackage(root + "." + service + ".."))
                    .should()
                    .dependOnClassesThat(resideInAnyPackage(packages(root, others)))
                    .as(service + " uses no other service's code"));
        }
        return rules;
    }

    static ArchRule nothingBelowOpsUsesOps(String root) {
        return noClasses()
                .that(resideInAPackage(root + "..").and(not(resideInAnyPackage(packages(root, OPS)))))
                .should()
                .dependOnClassesThat(resideInAnyPackage(packages(root, OPS)))
                .as("nothing below ops uses ops code");
    }

    static ArchRule loadToolkitUsesNoDrillOrBenchmark(String root) {
        return noClasses()
                .that(resideInAPackage(root + ".ops.load.."))
                .should()
                .dependOnClassesThat(resideInAnyPackage(
                        root + ".ops.drill..",
                        root + ".ops.bench..",
                        root + ".ops.redrive..",
                        root + ".ops.replay..",
                        root + ".ops.admin..",
                        root + ".platform.."))
                .as("the load toolkit uses no drill, benchmark, operator command or launcher");
    }

    static ArchRule drillsUseNoBenchmark(String root) {
        return noClasses()
                .that(resideInAPackage(root + ".ops.drill.."))
                .should()
                .dependOnClassesThat(resideInAPackage(root + ".ops.bench.."))
                .as("drills use no benchmark code (both use the load toolkit)");
    }

    static ArchRule benchmarksUseNoDrill(String root) {
        return noClasses()
                .that(resideInAPackage(root + ".ops.bench.."))
                .should()
                .dependOnClassesThat(resideInAPackage(root + ".ops.drill.."))
                .as("benchmarks use no drill code (both use the load toolkit)");
    }

    static ArchRule topPackagesAreFreeOfCycles(String root) {
        return slices().matching(root + ".(*)..").should().beFreeOfCycles();
    }

    static ArchRule opsPackagesAreFreeOfCycles(String root) {
        return slices().matching(root + ".ops.(*)..").should().beFreeOfCycles();
    }

    private static String[] packages(String root, List<String> names) {
        return names.stream().map(name -> root + "." + name + "..").toArray(String[]::new);
    }
}
