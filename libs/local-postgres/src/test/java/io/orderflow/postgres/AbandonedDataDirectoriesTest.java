package io.orderflow.postgres;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.util.List;
import org.junit.jupiter.api.Test;

class AbandonedDataDirectoriesTest {

    private static final Path DATA_ROOT = EmbeddedServer.dataRoot(LocalPostgresTest.EMBEDDED_DIRECTORY);
    private static final long OWN_PID = ProcessHandle.current().pid();

    @Test
    void stopsTheOrphanedPostmasterOfADeadOwnerAndDeletesItsDirectory() throws SQLException {
        EmbeddedServer server =
                EmbeddedServer.start(LocalPostgresTest.EMBEDDED_DIRECTORY, 0, EmbeddedMode.FRESH_UNSYNCED);
        Path dataDirectory = server.dataDirectory();
        ProcessHandle postmaster =
                AbandonedDataDirectories.runningPostmaster(dataDirectory).orElseThrow();
        String adminUrl = server.adminUrl().toString();
        DriverManager.getConnection(adminUrl, "postgres", "").close();

        // Pretend this JVM died: it owns the directory. Tests run one at a time, so no other server of ours is up.
        List<Path> reclaimed = new AbandonedDataDirectories(DATA_ROOT, pid -> pid != OWN_PID).reclaim();

        assertThat(reclaimed).contains(dataDirectory);
        assertThat(dataDirectory).doesNotExist();
        assertThat(postmaster.isAlive()).isFalse();
        assertThatThrownBy(() -> DriverManager.getConnection(adminUrl, "postgres", ""))
                .isInstanceOf(SQLException.class);
        // Not closing the server: the reclaim already stopped it, and pg_ctl stop would only report that.
    }

    @Test
    void deletesADeadOwnersDirectoryThatHasNoServer() throws IOException {
        Path leftover =
                Files.createDirectories(DATA_ROOT.resolve(AbandonedDataDirectories.directoryName(OWN_PID, 900)));
        Files.writeString(leftover.resolve("PG_VERSION"), "17\n");

        List<Path> reclaimed = new AbandonedDataDirectories(DATA_ROOT, pid -> pid != OWN_PID).reclaim();

        assertThat(reclaimed).contains(leftover);
        assertThat(leftover).doesNotExist();
    }

    @Test
    void keepsDirectoriesOfLiveOwnersAndDirectoriesItDidNotName() throws IOException {
        Path live = Files.createDirectories(DATA_ROOT.resolve(AbandonedDataDirectories.directoryName(OWN_PID, 901)));
        Path foreign = Files.createDirectories(DATA_ROOT.resolve("notes"));
        try {
            List<Path> reclaimed = new AbandonedDataDirectories(DATA_ROOT).reclaim();

            assertThat(reclaimed).doesNotContain(live, foreign);
            assertThat(live).isDirectory();
            assertThat(foreign).isDirectory();
        } finally {
            Files.delete(live);
            Files.delete(foreign);
        }
    }
}
