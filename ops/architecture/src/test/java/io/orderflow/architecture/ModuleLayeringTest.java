package io.orderflow.architecture;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import com.tngtech.archunit.lang.ArchRule;
import java.util.List;
import org.junit.jupiter.api.Test;

class ModuleLayeringTest {
    private static final String ROOT = "io.orderflow";
    private static final String SAMPLE = "io.orderflow.architecture.sample";

    private static final JavaClasses CODE = new ClassFileImporter()
            .withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS)
            .importPackages(ROOT);
    private static final JavaClasses WRONG_SAMPLE = new ClassFileImporter().importPackages(SAMPLE);

    @Test
    void everyModuleIsOnTheClasspathOfTheCheck() {
        for (String module : List.of(
                "contracts",
                "outbox",
                "consumer",
                "process",
                "postgres",
                "backoff",
                "frames",
                "testing",
                "hostileframes",
                "broker",
                "orders",
                "relay",
                "inventory",
                "notification",
                "analytics",
                "lag",
                "platform",
                "ops.load",
                "ops.drill",
                "ops.bench",
                "ops.redrive",
                "ops.replay",
                "ops.admin")) {
            assertThat(CODE.stream().anyMatch(c -> c.getPackageName().startsWith(ROOT + "." + module)))
                    .as("classes of %s.%s imported", ROOT, module)
                    .isTrue();
        }
    }

    @Test
    void theTreeKeepsItsLayers() {
        for (ArchRule rule : ModuleLayering.rules(ROOT)) {
            rule.check(CODE);
        }
    }

    @Test
    void aLibraryUsingAServiceIsCaught() {
        assertThatThrownBy(
                        () -> ModuleLayering.librariesUseNoModuleAbove(SAMPLE).check(WRONG_SAMPLE))
                .isInstanceOf(AssertionError.class)
                .hasMessageContaining("SampleCodec")
                .hasMessageContaining("SampleOrderService");
    }

    @Test
    void aServiceUsingTheBrokerOrAnotherServiceIsCaught() {
        assertThatThrownBy(() ->
                        ModuleLayering.servicesSpeakOnlyTheProtocol(SAMPLE).check(WRONG_SAMPLE))
                .isInstanceOf(AssertionError.class)
                .hasMessageContaining("SampleOrderService")
                .hasMessageContaining("SampleLog");
        assertThatThrownBy(() -> ModuleLayering.servicesUseNoOtherService(SAMPLE)
                        .getFirst()
                        .check(WRONG_SAMPLE))
                .isInstanceOf(AssertionError.class)
                .hasMessageContaining("SampleStock");
    }

    @Test
    void aHarnessUsingTheBrokersCodeIsCaught() {
        assertThatThrownBy(
                        () -> ModuleLayering.proofsSpeakOnlyTheProtocol(SAMPLE).check(WRONG_SAMPLE))
                .isInstanceOf(AssertionError.class)
                .hasMessageContaining("SampleHarness")
                .hasMessageContaining("SampleLog");
    }

    @Test
    void theLoadToolkitUsingABenchmarkAndABenchmarkUsingADrillAreCaught() {
        assertThatThrownBy(() ->
                        ModuleLayering.loadToolkitUsesNoDrillOrBenchmark(SAMPLE).check(WRONG_SAMPLE))
                .isInstanceOf(AssertionError.class)
                .hasMessageContaining("SampleLoad")
                .hasMessageContaining("SampleBenchmark");
        assertThatThrownBy(() -> ModuleLayering.benchmarksUseNoDrill(SAMPLE).check(WRONG_SAMPLE))
                .isInstanceOf(AssertionError.class)
                .hasMessageContaining("SampleDrill");
    }

    @Test
    void aCycleBetweenModulesIsCaught() {
        assertThatThrownBy(
                        () -> ModuleLayering.topPackagesAreFreeOfCycles(SAMPLE).check(WRONG_SAMPLE))
                .isInstanceOf(AssertionError.class)
                .hasMessageContaining("Cycle");
    }
}
