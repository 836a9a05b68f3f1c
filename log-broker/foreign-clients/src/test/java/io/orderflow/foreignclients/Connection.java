package io.orderflow.foreignclients;

import java.util.HashMap;
import java.util.Map;
import java.util.Optional;

/**
 * What a client needs to reach the broker: its bootstrap address and, when the broker listens with {@code SASL_SSL}
 * rather than {@code PLAINTEXT}, the login and the CA to trust.
 */
record Connection(String bootstrap, Optional<SaslSsl> saslSsl) {
    static Connection plaintext(String bootstrap) {
        return new Connection(bootstrap, Optional.empty());
    }

    /** The same broker with a wrong password: what a refused login looks like. */
    Connection withPassword(String password) {
        return new Connection(bootstrap, Optional.of(saslSsl.orElseThrow().withPassword(password)));
    }

    /** {@code base} plus the login's variables, if any: how the Node and Java scripts are told to log in. */
    Map<String, String> environment(Map<String, String> base) {
        Map<String, String> all = new HashMap<>(base);
        saslSsl.ifPresent(login -> all.putAll(login.environment()));
        return Map.copyOf(all);
    }
}
