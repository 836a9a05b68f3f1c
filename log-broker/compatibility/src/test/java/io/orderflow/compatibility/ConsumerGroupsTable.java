package io.orderflow.compatibility;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import java.util.stream.Stream;

/**
 * A table {@code kafka-consumer-groups.sh} printed ({@code --list --type --state}, {@code --describe} and its
 * {@code --members} and {@code --state} views, {@code --reset-offsets}): its header line, the first that starts with
 * {@code GROUP}, and the non-blank lines after it, each cut into cells at the columns where the header's names start.
 * The tool pads every column to one width, and a cell may hold spaces ({@code COORDINATOR (ID)}:
 * {@code 127.0.0.1:9092  (1)}), so positions, not whitespace, tell the cells apart.
 */
final class ConsumerGroupsTable {
    /** A column name in a header line; only {@code COORDINATOR (ID)} holds a space. */
    private static final Pattern HEADER_NAME = Pattern.compile("COORDINATOR \\(ID\\)|\\S+");

    private final List<Map<String, String>> rows;

    private ConsumerGroupsTable(List<Map<String, String>> rows) {
        this.rows = rows;
    }

    /** The table {@code run} printed on stdout; fails, showing the run, if it printed none. */
    static ConsumerGroupsTable of(KafkaCli.Run run) {
        List<String> lines = run.stdoutLines();
        int header = 0;
        while (header < lines.size() && !lines.get(header).startsWith("GROUP ")) {
            header++;
        }
        assertThat(header).as(run::transcript).isLessThan(lines.size());
        List<String> names = new ArrayList<>();
        List<Integer> starts = new ArrayList<>();
        Matcher column = HEADER_NAME.matcher(lines.get(header));
        while (column.find()) {
            names.add(column.group());
            starts.add(column.start());
        }
        List<Map<String, String>> rows = new ArrayList<>();
        for (String line : lines.subList(header + 1, lines.size())) {
            if (line.isBlank()) {
                continue;
            }
            Map<String, String> row = new LinkedHashMap<>();
            for (int i = 0; i < names.size(); i++) {
                int from = Math.min(starts.get(i), line.length());
                int to = i + 1 < names.size() ? Math.min(starts.get(i + 1), line.length()) : line.length();
                row.put(names.get(i), line.substring(from, to).trim());
            }
            rows.add(row);
        }
        return new ConsumerGroupsTable(rows);
    }

    /** The rows of {@code group}, column name to cell, keyed (in order) by their cell under {@code column}. */
    Map<String, Map<String, String>> rowsOf(String group, String column) {
        return rows.stream()
                .filter(row -> group.equals(row.get("GROUP")))
                .collect(Collectors.toMap(row -> row.get(column), row -> row, (a, b) -> a, TreeMap::new));
    }

    /** {@code row}'s cells under {@code columns}, in that order. */
    static List<String> cells(Map<String, String> row, String... columns) {
        return Stream.of(columns).map(row::get).toList();
    }
}
