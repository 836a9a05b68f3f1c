package io.orderflow.testing;

import io.smallrye.config.ConfigMapping;
import io.smallrye.config.WithDefault;
import io.smallrye.config.WithName;
import java.io.IOException;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;

/**
 * Both sides of the configuration convention (docs/configuration.md) for one service: the keys its
 * {@code @ConfigMapping} interface declares, with their defaults, and the rows the document lists under that mapping's
 * prefix. A service's {@code ConfigurationDocsTest} compares the two.
 */
public final class ConfigurationDocs {
    /** One documented or declared key: its environment variable and its default ({@code none} for no default). */
    public record Key(String name, String environmentVariable, String defaultValue) {}

    private ConfigurationDocs() {}

    /**
     * docs/configuration.md, found from a module's directory (surefire's working directory) by walking up to the
     * repository's.
     */
    public static Path document() {
        for (Path dir = Path.of("").toAbsolutePath(); dir != null; dir = dir.getParent()) {
            Path candidate = dir.resolve("docs").resolve("configuration.md");
            if (Files.isRegularFile(candidate)) {
                return candidate;
            }
        }
        throw new IllegalStateException(
                "docs/configuration.md not found from " + Path.of("").toAbsolutePath());
    }

    /** The environment variable MicroProfile Config reads for {@code key}. */
    public static String environmentVariable(String key) {
        return key.replaceAll("[^A-Za-z0-9]", "_").toUpperCase(Locale.ROOT);
    }

    /** Every key {@code mapping} declares, in declaration order, with its default. */
    public static Map<String, Key> declared(Class<?> mapping) {
        ConfigMapping annotation = mapping.getAnnotation(ConfigMapping.class);
        if (annotation == null) {
            throw new IllegalArgumentException(mapping + " is not a @ConfigMapping");
        }
        Map<String, Key> keys = new LinkedHashMap<>();
        collect(mapping, annotation.prefix(), keys);
        return keys;
    }

    private static void collect(Class<?> group, String prefix, Map<String, Key> keys) {
        for (Method method : group.getDeclaredMethods()) {
            if (method.isDefault() || Modifier.isStatic(method.getModifiers()) || method.getParameterCount() > 0) {
                continue;
            }
            WithName renamed = method.getAnnotation(WithName.class);
            String name = prefix + "." + (renamed != null ? renamed.value() : kebab(method.getName()));
            Class<?> type = method.getReturnType();
            if (type.isInterface() && !type.getName().startsWith("java.")) {
                collect(type, name, keys);
            } else {
                WithDefault value = method.getAnnotation(WithDefault.class);
                keys.put(name, new Key(name, environmentVariable(name), value == null ? "none" : value.value()));
            }
        }
    }

    private static String kebab(String camel) {
        return camel.replaceAll("([a-z0-9])([A-Z])", "$1-$2").toLowerCase(Locale.ROOT);
    }

    /** Every row of the document's tables whose key starts with {@code prefix + "."}. */
    public static Map<String, Key> documented(Path document, String prefix) throws IOException {
        Map<String, Key> keys = new LinkedHashMap<>();
        for (String line : Files.readAllLines(document)) {
            Optional<Key> key = row(line);
            if (key.isPresent() && key.get().name().startsWith(prefix + ".")) {
                keys.put(key.get().name(), key.get());
            }
        }
        return keys;
    }

    /** A table row {@code | `key` | `ENV` | `default` | ...}, or empty for any other line. */
    static Optional<Key> row(String line) {
        if (!line.startsWith("| `")) {
            return Optional.empty();
        }
        List<String> cells = new ArrayList<>();
        for (String cell : line.substring(1).split("\\|")) {
            cells.add(cell.strip());
        }
        if (cells.size() < 3) {
            return Optional.empty();
        }
        return Optional.of(new Key(unquote(cells.get(0)), unquote(cells.get(1)), unquote(cells.get(2))));
    }

    private static String unquote(String cell) {
        return cell.startsWith("`") && cell.endsWith("`") && cell.length() >= 2
                ? cell.substring(1, cell.length() - 1)
                : cell;
    }
}
