package io.orderflow.broker.security;

import io.orderflow.broker.log.LogFiles;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Base64;
import java.util.Collections;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;

/**
 * The SCRAM credentials of every user, kept in one file ({@code scram-credentials} in the security directory),
 * one line per user and mechanism: {@code user(base64url) mechanism iterations salt storedKey serverKey}. Never a
 * password nor a salted password. Each change rewrites the file whole with {@link LogFiles#replace} (fsync,
 * rename, directory fsync) before it is answered, so an acknowledged change survives kill -9 and power loss, and
 * a torn write leaves the previous file.
 *
 * <p>Thread-safety: reads see an immutable snapshot and take no lock; changes are serialised.
 */
public final class CredentialStore {
    static final String FILE = "scram-credentials";

    private final Path file;
    private final LogFiles files;
    private volatile Map<String, Map<ScramMechanism, ScramCredential>> users;

    private CredentialStore(Path file, LogFiles files, Map<String, Map<ScramMechanism, ScramCredential>> users) {
        this.file = file;
        this.files = files;
        this.users = users;
    }

    /** Opens the store in {@code directory}, creating it empty when there is none. */
    public static CredentialStore open(Path directory, LogFiles files) throws IOException {
        Files.createDirectories(directory);
        Path file = directory.resolve(FILE);
        Map<String, Map<ScramMechanism, ScramCredential>> users = new TreeMap<>();
        if (Files.exists(file)) {
            List<String> lines = Files.readAllLines(file, StandardCharsets.US_ASCII);
            for (int i = 0; i < lines.size(); i++) {
                if (!lines.get(i).isBlank()) {
                    read(lines.get(i), file, i + 1, users);
                }
            }
        }
        return new CredentialStore(file, files, freeze(users));
    }

    private static void read(
            String line, Path file, int number, Map<String, Map<ScramMechanism, ScramCredential>> users) {
        String[] f = line.split(" ");
        try {
            if (f.length != 6) {
                throw new IllegalArgumentException("expected 6 fields, found " + f.length);
            }
            String user = new String(Base64.getUrlDecoder().decode(f[0]), StandardCharsets.UTF_8);
            ScramMechanism mechanism = ScramMechanism.forSaslName(f[1])
                    .orElseThrow(() -> new IllegalArgumentException("unknown mechanism " + f[1]));
            Base64.Decoder b64 = Base64.getDecoder();
            users.computeIfAbsent(user, u -> new EnumMap<>(ScramMechanism.class))
                    .put(
                            mechanism,
                            new ScramCredential(
                                    mechanism,
                                    b64.decode(f[3]),
                                    Integer.parseInt(f[2]),
                                    b64.decode(f[4]),
                                    b64.decode(f[5])));
        } catch (IllegalArgumentException e) {
            throw new IllegalStateException(
                    "Unreadable SCRAM credential at " + file + " line " + number + ": " + e.getMessage(), e);
        }
    }

    public Optional<ScramCredential> credential(String user, ScramMechanism mechanism) {
        return Optional.ofNullable(users.getOrDefault(user, Map.of()).get(mechanism));
    }

    /** Every user with at least one credential, and their credentials, by name. */
    public Map<String, Map<ScramMechanism, ScramCredential>> users() {
        return users;
    }

    /**
     * Applies deletions, then upsertions, and makes the result durable before returning.
     *
     * @throws UncheckedIOException when the file cannot be written; nothing changed then
     */
    public synchronized void change(List<Deletion> deletions, List<ScramCredentialUpsert> upserts) {
        Map<String, Map<ScramMechanism, ScramCredential>> next = new TreeMap<>();
        users.forEach((user, credentials) -> next.put(user, copy(credentials)));
        for (Deletion d : deletions) {
            Map<ScramMechanism, ScramCredential> credentials = next.get(d.user());
            if (credentials != null) {
                credentials.remove(d.mechanism());
                if (credentials.isEmpty()) {
                    next.remove(d.user());
                }
            }
        }
        for (ScramCredentialUpsert u : upserts) {
            next.computeIfAbsent(u.user(), x -> new EnumMap<>(ScramMechanism.class))
                    .put(u.credential().mechanism(), u.credential());
        }
        try {
            files.replace(file, encode(next));
        } catch (IOException e) {
            throw new UncheckedIOException("Cannot write " + file, e);
        }
        users = freeze(next);
    }

    /** A credential to remove. */
    public record Deletion(String user, ScramMechanism mechanism) {}

    /** A credential to add or replace. */
    public record ScramCredentialUpsert(String user, ScramCredential credential) {}

    private static ByteBuffer encode(Map<String, Map<ScramMechanism, ScramCredential>> users) {
        StringBuilder out = new StringBuilder();
        Base64.Encoder b64 = Base64.getEncoder();
        users.forEach((user, credentials) -> credentials
                .values()
                .forEach(c -> out.append(Base64.getUrlEncoder()
                                .withoutPadding()
                                .encodeToString(user.getBytes(StandardCharsets.UTF_8)))
                        .append(' ')
                        .append(c.mechanism().saslName())
                        .append(' ')
                        .append(c.iterations())
                        .append(' ')
                        .append(b64.encodeToString(c.salt()))
                        .append(' ')
                        .append(b64.encodeToString(c.storedKey()))
                        .append(' ')
                        .append(b64.encodeToString(c.serverKey()))
                        .append('\n')));
        return ByteBuffer.wrap(out.toString().getBytes(StandardCharsets.US_ASCII));
    }

    private static Map<String, Map<ScramMechanism, ScramCredential>> freeze(
            Map<String, Map<ScramMechanism, ScramCredential>> users) {
        Map<String, Map<ScramMechanism, ScramCredential>> frozen = new TreeMap<>();
        users.forEach((user, credentials) -> frozen.put(user, Collections.unmodifiableMap(copy(credentials))));
        return Collections.unmodifiableMap(frozen);
    }

    private static Map<ScramMechanism, ScramCredential> copy(Map<ScramMechanism, ScramCredential> credentials) {
        Map<ScramMechanism, ScramCredential> copy = new EnumMap<>(ScramMechanism.class);
        copy.putAll(credentials);
        return copy;
    }
}
