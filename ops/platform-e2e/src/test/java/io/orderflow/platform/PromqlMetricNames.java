package io.orderflow.platform;

import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The metric names a PromQL expression reads: identifiers that are not functions, aggregation or set operators,
 * label names in {@code by (...)}/{@code without (...)}/{@code on (...)}/{@code ignoring (...)}, or anything inside
 * label matchers, strings and range selectors. Enough for the expressions of our alert rules and dashboards, not a
 * PromQL parser.
 */
final class PromqlMetricNames {

    private static final Set<String> KEYWORDS = Set.of(
            "by",
            "without",
            "on",
            "ignoring",
            "group_left",
            "group_right",
            "bool",
            "and",
            "or",
            "unless",
            "offset",
            "inf",
            "nan");
    private static final Pattern IDENTIFIER = Pattern.compile("[a-zA-Z_:][a-zA-Z0-9_:]*");

    private PromqlMetricNames() {}

    static Set<String> of(String expression) {
        String bare = expression
                .replaceAll("\"(?:[^\"\\\\]|\\\\.)*\"", "\"\"")
                .replaceAll("\\{[^}]*}", "")
                .replaceAll("\\[[^]]*]", "")
                .replaceAll("\\b(by|without|on|ignoring|group_left|group_right)\\s*\\([^)]*\\)", "");
        Set<String> names = new TreeSet<>();
        Matcher identifier = IDENTIFIER.matcher(bare);
        while (identifier.find()) {
            String name = identifier.group();
            int after = identifier.end();
            while (after < bare.length() && Character.isWhitespace(bare.charAt(after))) {
                after++;
            }
            boolean isCall = after < bare.length() && bare.charAt(after) == '(';
            boolean isNumberPart = identifier.start() > 0 && Character.isDigit(bare.charAt(identifier.start() - 1));
            if (!isCall && !isNumberPart && !KEYWORDS.contains(name.toLowerCase())) {
                names.add(name);
            }
        }
        return names;
    }
}
