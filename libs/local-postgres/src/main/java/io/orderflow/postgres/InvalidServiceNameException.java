package io.orderflow.postgres;

/** A service name that cannot become a PostgreSQL database name. */
public final class InvalidServiceNameException extends IllegalArgumentException {

    private final String serviceName;

    InvalidServiceNameException(String serviceName, String reason) {
        super("Service name '" + serviceName + "' cannot name a database: " + reason
                + ". Use 1 to 63 characters from [a-z0-9_-], starting with a letter, e.g. 'order-service'.");
        this.serviceName = serviceName;
    }

    public String serviceName() {
        return serviceName;
    }
}
