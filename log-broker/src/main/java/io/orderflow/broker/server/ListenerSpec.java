package io.orderflow.broker.server;

import io.orderflow.broker.security.ListenerProtocol;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;

/**
 * One listener as {@code listeners}, {@code advertised.listeners} and {@code listener.security.protocol.map}
 * describe it: {@code NAME://host:port}, the host empty for every interface, port 0 for a free one. The advertised
 * port -1 means the bound one.
 */
public record ListenerSpec(
        String name, String host, int port, ListenerProtocol protocol, String advertisedHost, int advertisedPort) {

    /** Kafka's default map: each standard protocol's name is a listener name of that protocol. */
    static final String DEFAULT_PROTOCOL_MAP =
            "PLAINTEXT:PLAINTEXT,SSL:SSL,SASL_PLAINTEXT:SASL_PLAINTEXT,SASL_SSL:SASL_SSL";

    /**
     * The listeners of {@code listeners} with their protocols from {@code protocolMap} and their advertised
     * addresses from {@code advertised} (a listener it does not name is advertised at {@code defaultAdvertisedHost}
     * and its bound port).
     */
    static List<ListenerSpec> parse(
            String listeners, String advertised, String protocolMap, String defaultAdvertisedHost) {
        Map<String, ListenerProtocol> protocols = new HashMap<>();
        for (String entry : protocolMap.split(",")) {
            String[] kv = entry.trim().split(":");
            if (kv.length != 2 || kv[0].isBlank()) {
                throw new IllegalArgumentException(
                        "listener.security.protocol.map entry '" + entry + "' is not NAME:PROTOCOL");
            }
            protocols.put(kv[0].trim().toUpperCase(Locale.ROOT), ListenerProtocol.parse(kv[1]));
        }
        Map<String, String[]> advertisedByName = new LinkedHashMap<>();
        if (advertised != null && !advertised.isBlank()) {
            for (String entry : advertised.split(",")) {
                String[] parsed = endpoint(entry.trim(), "advertised.listeners");
                advertisedByName.put(parsed[0], parsed);
            }
        }
        List<ListenerSpec> specs = new ArrayList<>();
        Set<Integer> ports = new HashSet<>();
        for (String entry : listeners.split(",")) {
            String[] parsed = endpoint(entry.trim(), "listeners");
            String name = parsed[0];
            ListenerProtocol protocol = protocols.get(name);
            if (protocol == null) {
                throw new IllegalArgumentException(
                        "Listener " + name + " has no security protocol in listener.security.protocol.map");
            }
            int port = Integer.parseInt(parsed[2]);
            if (port != 0 && !ports.add(port)) {
                throw new IllegalArgumentException("Two listeners bind port " + port);
            }
            if (specs.stream().anyMatch(s -> s.name().equals(name))) {
                throw new IllegalArgumentException("Listener " + name + " is named twice in listeners");
            }
            String[] adv = advertisedByName.remove(name);
            specs.add(new ListenerSpec(
                    name,
                    parsed[1],
                    port,
                    protocol,
                    adv == null || adv[1].isEmpty() ? defaultAdvertisedHost : adv[1],
                    adv == null ? -1 : Integer.parseInt(adv[2])));
        }
        if (!advertisedByName.isEmpty()) {
            throw new IllegalArgumentException(
                    "advertised.listeners names listeners that listeners does not: " + advertisedByName.keySet());
        }
        return List.copyOf(specs);
    }

    /** {@code NAME://host:port} as {name, host, port}; IPv6 hosts in brackets. */
    private static String[] endpoint(String text, String key) {
        int scheme = text.indexOf("://");
        int colon = text.lastIndexOf(':');
        if (scheme <= 0 || colon <= scheme + 2) {
            throw new IllegalArgumentException(key + " entry '" + text + "' is not NAME://host:port");
        }
        String name = text.substring(0, scheme).toUpperCase(Locale.ROOT);
        String host = text.substring(scheme + 3, colon);
        if (host.startsWith("[") && host.endsWith("]")) {
            host = host.substring(1, host.length() - 1);
        }
        String port = text.substring(colon + 1);
        try {
            int p = Integer.parseInt(port);
            if (p < 0 || p > 65535) {
                throw new NumberFormatException();
            }
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException(key + " entry '" + text + "' has no valid port", e);
        }
        return new String[] {name, host, port};
    }
}
