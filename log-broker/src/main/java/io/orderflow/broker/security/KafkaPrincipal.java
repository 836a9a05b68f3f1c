package io.orderflow.broker.security;

/**
 * Who a connection acts as, written {@code type:name} as Kafka writes it ({@code User:alice}). SASL logins give
 * {@code User:<username>}, a TLS client certificate {@code User:<subject DN>}, and a connection with neither
 * {@code User:ANONYMOUS}.
 */
public record KafkaPrincipal(String type, String name) {
    public static final String USER = "User";
    public static final KafkaPrincipal ANONYMOUS = new KafkaPrincipal(USER, "ANONYMOUS");

    public KafkaPrincipal {
        if (type == null || type.isEmpty() || type.indexOf(':') >= 0 || name == null) {
            throw new IllegalArgumentException("A principal is TYPE:NAME, with a non-empty type without ':'");
        }
    }

    public static KafkaPrincipal user(String name) {
        return new KafkaPrincipal(USER, name);
    }

    /** Reads {@code type:name}; the name may itself contain ':'. */
    public static KafkaPrincipal parse(String text) {
        int colon = text == null ? -1 : text.indexOf(':');
        if (colon <= 0) {
            throw new IllegalArgumentException("Principal " + text + " is not of the form TYPE:NAME (e.g. User:alice)");
        }
        return new KafkaPrincipal(text.substring(0, colon), text.substring(colon + 1));
    }

    @Override
    public String toString() {
        return type + ":" + name;
    }
}
