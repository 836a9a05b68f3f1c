package io.orderflow.broker;

import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import org.junit.jupiter.api.Test;

class BrokerLayeringTest {
    private static final String ROOT = "io.orderflow.broker";

    private final JavaClasses broker = new ClassFileImporter()
            .withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS)
            .importPackages(ROOT);

    private final JavaClasses wrongSample = new ClassFileImporter().importPackages(ROOT + ".layeringsample");

    @Test
    void brokerPackagesRespectTheLayers() {
        BrokerLayering.layers(ROOT).check(broker);
    }

    @Test
    void storageImportsNoNetworkCode() {
        BrokerLayering.storageHasNoNetworkCode(ROOT).check(broker);
    }

    @Test
    void layerRuleCatchesStorageCallingTheNetwork() {
        assertThatThrownBy(() -> BrokerLayering.layers(ROOT + ".layeringsample").check(wrongSample))
                .isInstanceOf(AssertionError.class)
                .hasMessageContaining("SampleSegment")
                .hasMessageContaining("SampleListener");
    }

    @Test
    void storageRuleCatchesNetworkImportsInStorage() {
        assertThatThrownBy(() -> BrokerLayering.storageHasNoNetworkCode(ROOT + ".layeringsample")
                        .check(wrongSample))
                .isInstanceOf(AssertionError.class)
                .hasMessageContaining("SampleSegment");
    }
}
