package io.orderflow.process;

/** A service did not come up: its jar is missing, it exited while starting, or it was not ready in time. */
public final class ServiceStartException extends RuntimeException {
    public ServiceStartException(String message) {
        super(message);
    }

    public ServiceStartException(String message, Throwable cause) {
        super(message, cause);
    }
}
