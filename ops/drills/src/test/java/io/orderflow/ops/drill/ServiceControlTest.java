package io.orderflow.ops.drill;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@link ServiceControl#compose}'s commands, run by a stand-in {@code docker} that records its arguments and working
 * directory (no Docker engine runs where this project is built): a SIGKILL through compose, a start that waits for the
 * health check, and a failure reported with docker's output.
 */
class ServiceControlTest {

    private static Path standIn(Path directory, int exitCode) throws IOException {
        Path docker = directory.resolve("docker");
        Files.writeString(
                docker,
                "#!/bin/sh\necho \"$(pwd) $*\" >> \"" + directory.resolve("calls") + "\"\necho 'no such service' >&2\n"
                        + "exit " + exitCode + "\n");
        Files.setPosixFilePermissions(docker, PosixFilePermissions.fromString("rwxr-xr-x"));
        return docker;
    }

    @Test
    void composeKillsWithSigkillAndStartsAgainWaitingForTheHealthCheck(@TempDir Path directory, @TempDir Path project)
            throws Exception {
        ServiceControl control = ServiceControl.compose(standIn(directory, 0).toString(), project);

        control.kill("inventory-service");
        control.start("inventory-service");

        assertThat(Files.readAllLines(directory.resolve("calls")))
                .containsExactly(
                        project + " compose kill -s KILL inventory-service",
                        project + " compose up -d --wait --no-deps inventory-service");
    }

    @Test
    void aFailedComposeCommandIsAnErrorWithItsOutput(@TempDir Path directory, @TempDir Path project) throws Exception {
        ServiceControl control = ServiceControl.compose(standIn(directory, 1).toString(), project);

        assertThatThrownBy(() -> control.kill("kafka-1"))
                .isInstanceOf(IOException.class)
                .hasMessageContaining("compose kill -s KILL kafka-1 exited with 1: no such service");
    }
}
