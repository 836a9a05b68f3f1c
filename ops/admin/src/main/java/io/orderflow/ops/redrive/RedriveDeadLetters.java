package io.orderflow.ops.redrive;

import io.orderflow.consumer.DeadLetterRedrive;
import io.orderflow.consumer.RetryTopics;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;

/**
 * {@code ops/bin/redrive-dead-letters}: re-drives a consumer group's dead letters after a fix
 * ({@link DeadLetterRedrive}): copies the records of {@code dead-letter-topic-<group>} not re-driven before to
 * {@code <group>_retry_<first delay ms>}, where the running service takes them as first retries.
 */
public final class RedriveDeadLetters {

    static final String USAGE = """
            Usage: ops/bin/redrive-dead-letters --group GROUP [--bootstrap-servers HOST:PORT] [--first-retry-delay DURATION]
              --group               the consumer group: inventory-service, notification-service or analytics-service
              --bootstrap-servers   the broker (default localhost:9092)
              --first-retry-delay   the group's first retry delay, which names its first retry topic (default 1s,
                                    the services' default; ISO-8601 or 500ms / 10s / 1m)
            """;

    private RedriveDeadLetters() {}

    public static void main(String[] args) throws Exception {
        List<String> list = Arrays.asList(args);
        if (list.contains("--help") || list.contains("-h") || !list.contains("--group")) {
            System.out.print(USAGE);
            System.exit(list.contains("--group") ? 0 : 2);
        }
        String group = value(list, "--group", null);
        String bootstrap = value(list, "--bootstrap-servers", "localhost:9092");
        Duration firstDelay = duration(value(list, "--first-retry-delay", "1s"));
        int copied =
                DeadLetterRedrive.redrive(bootstrap, RetryTopics.of(group, List.of(firstDelay)), Duration.ofMinutes(2));
        System.out.printf(
                "re-drove %d dead letters of %s to %s%n",
                copied, group, RetryTopics.of(group, List.of(firstDelay)).retryTopic(0));
    }

    private static String value(List<String> args, String name, String fallback) {
        int at = args.indexOf(name);
        if (at < 0) {
            return fallback;
        }
        if (at + 1 >= args.size()) {
            throw new IllegalArgumentException(name + " needs a value");
        }
        return args.get(at + 1);
    }

    /** {@code 500ms}, {@code 10s}, {@code 1m}, or ISO-8601 ({@code PT10S}). */
    static Duration duration(String text) {
        if (text.endsWith("ms")) {
            return Duration.ofMillis(Long.parseLong(text.substring(0, text.length() - 2)));
        }
        if (text.endsWith("s")) {
            return Duration.ofSeconds(Long.parseLong(text.substring(0, text.length() - 1)));
        }
        if (text.endsWith("m")) {
            return Duration.ofMinutes(Long.parseLong(text.substring(0, text.length() - 1)));
        }
        return Duration.parse(text);
    }
}
