package io.orderflow.broker.server;

import io.orderflow.broker.security.KafkaPrincipal;
import io.orderflow.broker.security.ScramMechanism;
import io.orderflow.broker.security.TlsSettings;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The broker's security settings: TLS for SSL and SASL_SSL listeners, the SASL mechanisms, re-authentication,
 * the delay of failed logins, the credentials to create at start, and the authorizer.
 *
 * @param tls null when no listener uses TLS and no {@code ssl.keystore.location} is set
 * @param bootstrapCredentials users created at start when they have no credential of that mechanism yet (kafka-storage
 *     format's {@code --add-scram} syntax), so a new broker has an administrator who can create the others
 * @param authorizer whether ACLs are enforced ({@code authorizer.class.name})
 */
public record SecurityConfig(
        TlsSettings tls,
        List<String> saslMechanisms,
        long reauthMs,
        long failedAuthenticationDelayMs,
        List<BootstrapCredential> bootstrapCredentials,
        boolean authorizer,
        Set<KafkaPrincipal> superUsers,
        boolean allowEveryoneIfNoAcl) {

    /** The name of Kafka's ACL authorizer in KRaft mode; this broker's own authorizer answers to it. */
    public static final String STANDARD_AUTHORIZER = "org.apache.kafka.metadata.authorizer.StandardAuthorizer";

    static final List<String> MECHANISMS = List.of("SCRAM-SHA-256", "SCRAM-SHA-512", "PLAIN");

    private static final Pattern SCRAM_ENTRY =
            Pattern.compile("\\s*(SCRAM-SHA-256|SCRAM-SHA-512)=\\[name=([^,\\]]+),password=([^\\]]+)]\\s*");

    /** A user and password to create at start. */
    public record BootstrapCredential(ScramMechanism mechanism, String user, String password) {
        @Override
        public String toString() {
            return mechanism.saslName() + "=[name=" + user + ",password=(hidden)]";
        }
    }

    static List<String> mechanisms(String value) {
        List<String> mechanisms = new ArrayList<>();
        for (String m : value.split(",")) {
            String name = m.trim();
            if (name.isEmpty()) {
                continue;
            }
            if (!MECHANISMS.contains(name)) {
                throw new IllegalArgumentException(
                        "sasl.enabled.mechanisms names " + name + "; supported: " + String.join(", ", MECHANISMS));
            }
            mechanisms.add(name);
        }
        return List.copyOf(mechanisms);
    }

    /** {@code SCRAM-SHA-512=[name=admin,password=secret];...}. */
    static List<BootstrapCredential> bootstrap(String value) {
        List<BootstrapCredential> credentials = new ArrayList<>();
        if (value == null || value.isBlank()) {
            return credentials;
        }
        for (String entry : value.split(";")) {
            Matcher m = SCRAM_ENTRY.matcher(entry);
            if (!m.matches()) {
                throw new IllegalArgumentException("scram.bootstrap.credentials entry is not "
                        + "SCRAM-SHA-256|SCRAM-SHA-512=[name=NAME,password=PASSWORD]");
            }
            credentials.add(new BootstrapCredential(
                    ScramMechanism.forSaslName(m.group(1)).orElseThrow(), m.group(2), m.group(3)));
        }
        return List.copyOf(credentials);
    }

    static boolean authorizer(String value) {
        if (value.isBlank()) {
            return false;
        }
        if (value.trim().equals(STANDARD_AUTHORIZER)) {
            return true;
        }
        throw new IllegalArgumentException("authorizer.class.name=" + value + ": only " + STANDARD_AUTHORIZER
                + " (this broker's ACL authorizer) or nothing");
    }

    static Set<KafkaPrincipal> superUsers(String value) {
        Set<KafkaPrincipal> users = new LinkedHashSet<>();
        for (String p : value.split(";")) {
            if (!p.isBlank()) {
                users.add(KafkaPrincipal.parse(p.trim()));
            }
        }
        return Set.copyOf(users);
    }
}
