package io.orderflow.ops.replay;

/**
 * A replay that did not happen, or did not happen whole, with the reason an operator reads on stderr: an unknown group
 * or topic, a broker that refused the new offsets, a service that could not be stopped or started. Subclasses carry
 * the values of the two refusals a test checks for: {@link GroupStillActiveException} and {@link
 * ResetNotVerifiedException}.
 */
public class ReplayException extends Exception {
    private static final long serialVersionUID = 1L;

    public ReplayException(String message) {
        super(message);
    }

    public ReplayException(String message, Throwable cause) {
        super(message, cause);
    }
}
