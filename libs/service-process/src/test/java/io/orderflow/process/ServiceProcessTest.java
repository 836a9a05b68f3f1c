package io.orderflow.process;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.jar.Attributes;
import java.util.jar.JarEntry;
import java.util.jar.JarOutputStream;
import java.util.jar.Manifest;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ServiceProcessTest {
    @TempDir
    Path dir;

    private Path jar;

    @BeforeEach
    void packageTheFakeService() throws IOException {
        jar = dir.resolve("fake-service.jar");
        Manifest manifest = new Manifest();
        manifest.getMainAttributes().put(Attributes.Name.MANIFEST_VERSION, "1.0");
        manifest.getMainAttributes().put(Attributes.Name.MAIN_CLASS, FakeService.class.getName());
        String entry = FakeService.class.getName().replace('.', '/') + ".class";
        try (OutputStream file = Files.newOutputStream(jar);
                JarOutputStream out = new JarOutputStream(file, manifest);
                var classBytes = FakeService.class.getClassLoader().getResourceAsStream(entry)) {
            out.putNextEntry(new JarEntry(entry));
            classBytes.transferTo(out);
            out.closeEntry();
        }
    }

    private ServiceProcess.Builder fake() {
        return ServiceProcess.builder("fake-service", jar).logFile(dir.resolve("fake.log"));
    }

    @Test
    void startsWithItsPropertiesOnAFreePortAndIsReadyWhenItSaysSo() {
        try (ServiceProcess service = fake().property("greeting", "hello").start()) {
            assertThat(service.isAlive()).isTrue();
            assertThat(service.status("/q/health/ready")).isEqualTo(200);
            assertThat(service.port()).isPositive();
            assertThat(service.readyMillis()).isPositive();
            assertThat(service.log()).contains("greeting=hello", "fake service ready");
        }
    }

    @Test
    void closeStopsItAndKillNineCrashesIt() {
        ServiceProcess stopped = fake().start();
        stopped.close();
        assertThat(stopped.isAlive()).isFalse();
        stopped.close(); // idempotent

        ServiceProcess crashed = fake().start();
        crashed.killNine();
        assertThat(crashed.exitCode()).hasValue(137);
    }

    @Test
    void aServiceThatExitsWhileStartingFailsTheStartWithTheEndOfItsLog() {
        assertThatThrownBy(() -> fake().property("fail", "true").start())
                .isInstanceOf(ServiceStartException.class)
                .hasMessageContaining("exited with code 3")
                .hasMessageContaining("told to fail");
    }

    @Test
    void aMissingJarSaysHowToBuildIt() {
        assertThatThrownBy(() -> ServiceProcess.builder("order-service", dir.resolve("nope.jar"))
                        .start())
                .isInstanceOf(ServiceStartException.class)
                .hasMessageContaining("./mvnw -pl order-service -am package -DskipTests");
    }

    @Test
    void aStartStopsTheOrphanThatAnEarlierOwnerLeftInItsPidFile() {
        Path pidFile = dir.resolve("fake.pid");
        ServiceProcess orphan = fake().pidFile(pidFile).start();
        ServiceProcess.builder("fake-service", jar)
                .logFile(dir.resolve("fake.log"))
                .pidFile(pidFile)
                .start()
                .close();
        assertThat(orphan.isAlive()).isFalse();
    }
}
