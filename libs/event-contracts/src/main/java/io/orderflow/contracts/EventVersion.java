package io.orderflow.contracts;

import com.fasterxml.jackson.annotation.JsonCreator;
import com.fasterxml.jackson.annotation.JsonValue;
import java.util.regex.Pattern;

/**
 * The version of an event's payload, "MAJOR.MINOR".
 *
 * <p>Why two numbers: a minor revision only adds optional fields, so every reader of the same major can read it (it
 * ignores what it does not know, and defaults what is missing). A new major is a breaking change; a reader must not
 * guess at it and rejects it with {@link UnsupportedEventVersionException}. The version travels as the JSON string
 * {@code "1.1"}, never as a number, so that "1.10" stays distinct from "1.1".
 */
public record EventVersion(int major, int minor) implements Comparable<EventVersion> {

    public static final EventVersion V1_0 = new EventVersion(1, 0);
    public static final EventVersion V1_1 = new EventVersion(1, 1);

    // No leading zeros (one spelling per version) and at most 9 digits, so parsing never overflows an int.
    private static final Pattern FORMAT = Pattern.compile("(0|[1-9][0-9]{0,8})\\.(0|[1-9][0-9]{0,8})");

    public EventVersion {
        if (major < 0 || minor < 0) {
            throw new IllegalArgumentException(
                    "event version numbers must not be negative, was " + major + "." + minor);
        }
    }

    /** Parses "MAJOR.MINOR", e.g. "1.1"; throws {@link IllegalArgumentException} naming the text otherwise. */
    @JsonCreator
    public static EventVersion parse(String text) {
        var matcher = text == null ? null : FORMAT.matcher(text);
        if (matcher == null || !matcher.matches()) {
            throw new IllegalArgumentException("event version must look like MAJOR.MINOR (e.g. \"1.1\"), was "
                    + (text == null ? "null" : "\"" + text + "\""));
        }
        return new EventVersion(Integer.parseInt(matcher.group(1)), Integer.parseInt(matcher.group(2)));
    }

    /** True when a reader built for {@code this} version can read a payload of {@code other}: same major. */
    public boolean sameMajorAs(EventVersion other) {
        return major == other.major;
    }

    @Override
    public int compareTo(EventVersion other) {
        int byMajor = Integer.compare(major, other.major);
        return byMajor != 0 ? byMajor : Integer.compare(minor, other.minor);
    }

    /** "MAJOR.MINOR", the form used in the envelope, the record header and schema file names. */
    @JsonValue
    @Override
    public String toString() {
        return major + "." + minor;
    }
}
