package io.orderflow.broker.log;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Base64;
import java.util.List;
import java.util.function.Consumer;

/**
 * A small table the broker keeps beside its log (ACLs, SCRAM credentials, client quotas): one text file, one record
 * per line, a fixed number of fields separated by single spaces, ASCII only (free text such as a user name goes in
 * as {@link #encode base64url}).
 *
 * <p>The file is never edited in place. Each change {@link #replace rewrites} it whole through {@link
 * LogFiles#replace} (written beside, fsynced, renamed over, directory fsynced), so after kill -9 or a power cut it
 * holds either the table before the change or the table after it, and a caller that answers only once {@code
 * replace} returned has acknowledged nothing that can be lost.
 *
 * <p>Reading is strict: a line with the wrong number of fields, or one its reader refuses, stops the broker's start
 * with the file and the line named, rather than starting with a record silently dropped (an ACL forgotten is an
 * access granted).
 */
public final class LineFile {
    private final Path path;
    private final LogFiles files;
    private final String record;
    private final int fields;

    private LineFile(Path path, LogFiles files, String record, int fields) {
        this.path = path;
        this.files = files;
        this.record = record;
        this.fields = fields;
    }

    /**
     * The file {@code name} in {@code directory} (created if missing), whose lines are {@code record}s of {@code
     * fields} fields each; {@code record} names one in error messages ("ACL", "client quota").
     */
    public static LineFile in(Path directory, String name, String record, int fields, LogFiles files)
            throws IOException {
        Files.createDirectories(directory);
        return new LineFile(directory.resolve(name), files, record, fields);
    }

    /**
     * Hands the fields of each non-blank line to {@code reader}, in file order; nothing when there is no file yet.
     *
     * @throws IllegalStateException naming the file and line when a line has the wrong number of fields or {@code
     *     reader} throws an {@link IllegalArgumentException} for it
     */
    public void forEachRecord(Consumer<String[]> reader) throws IOException {
        if (!Files.exists(path)) {
            return;
        }
        List<String> lines = Files.readAllLines(path, StandardCharsets.US_ASCII);
        for (int i = 0; i < lines.size(); i++) {
            String line = lines.get(i);
            if (line.isBlank()) {
                continue;
            }
            try {
                String[] f = line.split(" ", -1);
                if (f.length != fields) {
                    throw new IllegalArgumentException("expected " + fields + " fields, found " + f.length);
                }
                reader.accept(f);
            } catch (IllegalArgumentException e) {
                throw new IllegalStateException(
                        "Unreadable " + record + " at " + path + " line " + (i + 1) + ": " + e.getMessage(), e);
            }
        }
    }

    /**
     * Replaces the whole table with {@code lines} and makes it durable before returning.
     *
     * @throws UncheckedIOException when the file cannot be written; it still holds the table before then
     */
    public void replace(List<String> lines) {
        StringBuilder out = new StringBuilder();
        for (String line : lines) {
            out.append(line).append('\n');
        }
        try {
            files.replace(path, ByteBuffer.wrap(out.toString().getBytes(StandardCharsets.US_ASCII)));
        } catch (IOException e) {
            throw new UncheckedIOException("Cannot write " + path, e);
        }
    }

    /** {@code text} as one field: base64url of its UTF-8, without padding. */
    public static String encode(String text) {
        return Base64.getUrlEncoder().withoutPadding().encodeToString(text.getBytes(StandardCharsets.UTF_8));
    }

    /** The text of a field {@link #encode} wrote (padded fields, as older files hold, are read too). */
    public static String decode(String field) {
        return new String(Base64.getUrlDecoder().decode(field), StandardCharsets.UTF_8);
    }
}
