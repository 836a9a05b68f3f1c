package io.orderflow.ops.replay;

import io.orderflow.ops.load.PrometheusText;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.Locale;

/**
 * A consuming service's {@code orderflow_consumer_events_total{group,outcome}}, read from its {@code /q/metrics}
 * (Prometheus text): how many events it applied and how many it skipped as duplicates (already claimed in its
 * processed-events table), ignored, sent to a retry topic or dead-lettered. The counters start at 0 when the service
 * starts, so read after a replay restarted it they count what the replay made it do. A service's metrics hold its own
 * group only: the group label is checked to be there (the right service's metrics), the outcomes are read by their
 * label alone, whatever the labels' order. Immutable.
 */
public record ConsumerCounters(long applied, long duplicate, long ignored, long retried, long deadLettered) {

    static final String METRIC = "orderflow_consumer_events_total";

    private static final HttpClient HTTP =
            HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();

    /**
     * The counters of {@code group} at {@code metrics} (a service's {@code /q/metrics}).
     *
     * @throws ReplayException if it does not answer 200, or has no counter of that group
     */
    public static ConsumerCounters read(URI metrics, String group) throws ReplayException, InterruptedException {
        HttpResponse<String> answer;
        try {
            answer = HTTP.send(
                    HttpRequest.newBuilder(metrics)
                            .timeout(Duration.ofSeconds(10))
                            .build(),
                    HttpResponse.BodyHandlers.ofString());
        } catch (IOException e) {
            throw new ReplayException("cannot read " + metrics + ": " + e.getMessage(), e);
        }
        if (answer.statusCode() != 200) {
            throw new ReplayException(metrics + " answered " + answer.statusCode());
        }
        return parse(answer.body(), group)
                .orElseThrow(() -> new ReplayException("no " + METRIC + "{group=\"" + group + "\"} at " + metrics
                        + ": is it the metrics of the service that consumes in that group?"));
    }

    /** The counters of {@code group} in a Prometheus text exposition; empty if it has none of that group. */
    static java.util.Optional<ConsumerCounters> parse(String exposition, String group) {
        if (PrometheusText.sum(exposition, METRIC, "group=\"" + group + "\"").isEmpty()) {
            return java.util.Optional.empty();
        }
        return java.util.Optional.of(new ConsumerCounters(
                count(exposition, "applied"),
                count(exposition, "duplicate"),
                count(exposition, "ignored"),
                count(exposition, "retried"),
                count(exposition, "dead_lettered")));
    }

    /** For the report: "1200 duplicate (skipped), 30 applied, 0 ignored, 0 retried, 0 dead-lettered". */
    public String describe() {
        return String.format(
                Locale.ROOT,
                "%d duplicate (skipped), %d applied, %d ignored, %d retried, %d dead-lettered",
                duplicate,
                applied,
                ignored,
                retried,
                deadLettered);
    }

    private static long count(String exposition, String outcome) {
        return (long) PrometheusText.sum(exposition, METRIC, "outcome=\"" + outcome + "\"")
                .orElse(0);
    }
}
