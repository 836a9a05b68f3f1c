package io.orderflow.ops.drill;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class DrillReportTest {

    @Test
    void aReportPassesOnlyWhenItCheckedSomethingAndEveryCheckHeld() {
        DrillReport report = new DrillReport("duplicate-event");
        assertThat(report.passed()).as("nothing verified").isFalse();
        report.step("placed 3 orders");
        report.check("inventory reserved each order once", true, "0 of 3 changed");
        assertThat(report.passed()).isTrue();
        report.check("notification sent each mail once", false, "1 of 3 changed");

        String text = report.render();

        assertThat(report.passed()).isFalse();
        assertThat(text)
                .contains("Drill duplicate-event", "  1. placed 3 orders")
                .contains("[ok] inventory reserved each order once: 0 of 3 changed")
                .contains("[FAILED] notification sent each mail once: 1 of 3 changed")
                .endsWith("FAIL\n");
    }

    @Test
    void theChartDrawsEachGroupsLagScaledToTheLargestAndKeepsAPeakInAColumnItShares() {
        Map<String, List<LagWatch.Reading>> readings = new LinkedHashMap<>();
        readings.put(
                "inventory-service",
                List.of(
                        new LagWatch.Reading(0, 0, "OK"),
                        new LagWatch.Reading(1, 400, "WARN"),
                        new LagWatch.Reading(2, 800, "WARN"),
                        new LagWatch.Reading(3, 0, "OK")));
        readings.put(
                "analytics-service",
                List.of(
                        new LagWatch.Reading(0, 0, "OK"),
                        new LagWatch.Reading(1, 1, "OK"),
                        new LagWatch.Reading(2, 0, "OK"),
                        new LagWatch.Reading(3, 0, "OK")));

        String chart = LagWatch.chart(readings, 60);

        assertThat(chart).contains("inventory-service      | ▄█ | max 800 records, last status OK");
        // A lag of 1 against a scale of 800 still shows: the lowest bar, not a blank.
        assertThat(chart).contains("analytics-service      | ▁  | max 1 records, last status OK");
        assertThat(chart).contains("0 s .. 3 s", "full height = 800 records");
        // Two columns for four readings: each column is the larger of its two.
        assertThat(LagWatch.chart(readings, 2)).contains("|▄█|", "|▁ |");
    }
}
