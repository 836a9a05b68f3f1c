package io.orderflow.broker.log;

/** A topic configuration value we refuse, naming the key, the value and why. */
public final class InvalidConfigException extends LogException {
    private final String key;

    public InvalidConfigException(String key, Object value, String reason) {
        super("Invalid value " + value + " for configuration " + key + ": " + reason);
        this.key = key;
    }

    public String key() {
        return key;
    }
}
