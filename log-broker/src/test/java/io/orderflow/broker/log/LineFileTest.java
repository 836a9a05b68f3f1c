package io.orderflow.broker.log;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class LineFileTest {
    @TempDir
    Path dir;

    private List<List<String>> records(LineFile file) throws Exception {
        List<List<String>> read = new ArrayList<>();
        file.forEachRecord(f -> read.add(List.of(f)));
        return read;
    }

    @Test
    void aMissingFileIsAnEmptyTableInADirectoryThatNowExists() throws Exception {
        LineFile file = LineFile.in(dir.resolve("security"), "acls", "ACL", 2, LogFiles.real());

        assertThat(records(file)).isEmpty();
        assertThat(dir.resolve("security")).isDirectory();
        assertThat(dir.resolve("security").resolve("acls")).doesNotExist();
    }

    @Test
    void recordsComeBackInOrderWithEmptyFieldsAndBlankLinesSkipped() throws Exception {
        LineFile file = LineFile.in(dir, "table", "row", 3, LogFiles.real());
        file.replace(List.of("a b c", "", "d  " + LineFile.encode("")));

        assertThat(records(LineFile.in(dir, "table", "row", 3, LogFiles.real())))
                .containsExactly(List.of("a", "b", "c"), List.of("d", "", ""));
    }

    @Test
    void freeTextSurvivesTheRoundTripAsOneAsciiField() {
        for (String text : List.of("", "User:alice", "名前 with spaces\nand a newline", "a/b+c=d")) {
            String field = LineFile.encode(text);
            assertThat(field).matches("[A-Za-z0-9_-]*");
            assertThat(LineFile.decode(field)).isEqualTo(text);
        }
        assertThat(LineFile.decode("YQ=="))
                .as("a padded field, as older files hold")
                .isEqualTo("a");
    }

    @Test
    void aLineWithTheWrongNumberOfFieldsStopsTheReadNamingFileAndLine() throws Exception {
        Files.writeString(dir.resolve("table"), "a b c\n\na b\n", StandardCharsets.US_ASCII);
        LineFile file = LineFile.in(dir, "table", "client quota", 3, LogFiles.real());

        assertThatThrownBy(() -> records(file))
                .isInstanceOf(IllegalStateException.class)
                .hasMessage(
                        "Unreadable client quota at " + dir.resolve("table") + " line 3: expected 3 fields, found 2");
    }

    @Test
    void aLineItsReaderRefusesStopsTheReadWithTheReadersReason() throws Exception {
        Files.writeString(dir.resolve("table"), "1\nx\n", StandardCharsets.US_ASCII);
        LineFile file = LineFile.in(dir, "table", "number", 1, LogFiles.real());

        assertThatThrownBy(() -> file.forEachRecord(f -> Integer.parseInt(f[0])))
                .isInstanceOf(IllegalStateException.class)
                .hasMessageStartingWith("Unreadable number at " + dir.resolve("table") + " line 2: For input string");
    }

    @Test
    void aPowerCutDuringOrAfterAReplaceLeavesOneWholeTable() throws Exception {
        List<String> before = List.of("old 1", "old 2");
        List<String> after = List.of("new 1", "new 2", "new 3");
        for (long seed = 0; seed < 50; seed++) {
            Path home = Files.createDirectories(dir.resolve("run-" + seed));
            LineFile.in(home, "table", "row", 2, LogFiles.real()).replace(before);

            PowerLossFiles files = new PowerLossFiles();
            Random random = new Random(seed);
            boolean cutBeforeRename = random.nextBoolean();
            if (cutBeforeRename) {
                files.beforeForce(path -> {
                    throw new IllegalStateException("power cut before " + path + " was fsynced");
                });
            }
            LineFile file = LineFile.in(home, "table", "row", 2, files);
            try {
                file.replace(after);
            } catch (IllegalStateException cut) {
                assertThat(cutBeforeRename).isTrue();
            }
            files.powerLoss(random);

            List<List<String>> read = records(LineFile.in(home, "table", "row", 2, LogFiles.real()));
            List<List<String>> expected = (cutBeforeRename ? before : after)
                    .stream().map(l -> List.of(l.split(" "))).toList();
            assertThat(read).as("seed %d", seed).isEqualTo(expected);
        }
    }
}
