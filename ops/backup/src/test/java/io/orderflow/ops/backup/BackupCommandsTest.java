package io.orderflow.ops.backup;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

class BackupCommandsTest {

    @TempDir
    Path directory;

    @Test
    void aBackupOfAPlatformThatIsNotRunningIsRefusedSayingSo() throws Exception {
        Files.createDirectories(directory.resolve("postgres").resolve("cluster"));

        StringWriter output = new StringWriter();
        int exit = run(
                new BackupMain(),
                output,
                "--to",
                directory.resolve("backup").toString(),
                "--postgres-dir",
                directory.resolve("postgres").toString(),
                "--broker-dir",
                directory.resolve("broker").toString());

        assertThat(exit).isEqualTo(1);
        assertThat(output.toString()).contains("backup: no PostgreSQL runs on", "start the platform first");
    }

    @Test
    void aRestoreOntoADirectoryInUseIsRefusedAndLeavesItAlone() throws Exception {
        Path backup = Files.createDirectories(directory.resolve("backup"));
        Files.writeString(
                backup.resolve(PlatformBackup.MANIFEST),
                PlatformBackup.BROKER_COPY_STARTED + "=2026-12-05T16:00:00Z\n");
        Path kept = Files.writeString(
                Files.createDirectories(directory.resolve("live").resolve("postgres"))
                        .resolve("keep"),
                "data");

        StringWriter output = new StringWriter();
        int exit = run(
                new RestoreMain(),
                output,
                "--from",
                backup.toString(),
                "--postgres-dir",
                directory.resolve("live").resolve("postgres").toString(),
                "--broker-dir",
                directory.resolve("live").resolve("broker").toString());

        assertThat(exit).isEqualTo(1);
        assertThat(output.toString()).contains("restore: ", "is not empty: give a new directory");
        assertThat(kept).hasContent("data");
        assertThat(directory.resolve("live").resolve("broker")).doesNotExist();
    }

    @Test
    void bothNameWhatTheyNeed() {
        StringWriter output = new StringWriter();
        assertThat(run(new BackupMain(), output)).isEqualTo(2);
        assertThat(run(new RestoreMain(), output, "--from", "x")).isEqualTo(2);
        assertThat(output.toString()).contains("Missing required option: '--to=DIR'", "'--postgres-dir=DIR'");
    }

    private static int run(Object command, StringWriter output, String... arguments) {
        return new CommandLine(command)
                .setOut(new PrintWriter(output, true))
                .setErr(new PrintWriter(output, true))
                .execute(arguments);
    }
}
