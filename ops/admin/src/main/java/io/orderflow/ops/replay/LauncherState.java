package io.orderflow.ops.replay;

import java.io.IOException;
import java.io.Reader;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;
import java.util.Properties;

/**
 * What the replay reads of a running {@code ./run-platform}'s state file ({@code .orderflow/platform.state}, written
 * by the launcher's {@code PlatformState}): the control port's URL and each service's base URL, whose {@code
 * /q/metrics} the report reads. Read once; immutable.
 */
public record LauncherState(URI control, Map<String, URI> services) {

    public LauncherState {
        services = Map.copyOf(services);
    }

    /**
     * The state in {@code file}.
     *
     * @throws ReplayException if there is no such file or no control port in it (no platform runs, or it is starting)
     */
    public static LauncherState read(Path file) throws ReplayException {
        if (!Files.isRegularFile(file)) {
            throw new ReplayException("no platform runs here: no " + file + " (./run-platform writes it; with docker"
                    + " compose use --service-control compose, otherwise stop the service yourself and use"
                    + " --service-control none)");
        }
        Properties properties = new Properties();
        try (Reader reader = Files.newBufferedReader(file, StandardCharsets.UTF_8)) {
            properties.load(reader);
        } catch (IOException e) {
            throw new ReplayException("cannot read " + file + ": " + e.getMessage(), e);
        }
        String control = properties.getProperty("control.url");
        if (control == null) {
            throw new ReplayException("the platform of " + file + " is still starting (no control.url yet)");
        }
        Map<String, URI> services = new LinkedHashMap<>();
        for (int i = 0; properties.containsKey("service." + i + ".name"); i++) {
            services.put(
                    properties.getProperty("service." + i + ".name"),
                    URI.create(properties.getProperty("service." + i + ".url")));
        }
        return new LauncherState(URI.create(control), services);
    }

    /** {@code service}'s {@code /q/metrics}, if the platform runs such a service. */
    public Optional<URI> metrics(String service) {
        return Optional.ofNullable(services.get(service)).map(url -> url.resolve("/q/metrics"));
    }
}
