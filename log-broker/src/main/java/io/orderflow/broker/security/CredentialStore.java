package io.orderflow.broker.security;

import io.orderflow.broker.log.LineFile;
import io.orderflow.broker.log.LogFiles;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.util.ArrayList;
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
 * password nor a salted password. Each change rewrites the file whole ({@link LineFile#replace}: fsync,
 * rename, directory fsync) before it is answered, so an acknowledged change survives kill -9 and power loss, and
 * a torn write leaves the previous file.
 *
 * <p>Thread-safety: reads see an immutable snapshot and take no lock; changes are serialised.
 */
public final class CredentialStore {
    static final String FILE = "scram-credentials";

    private final LineFile file;
    private volatile Map<String, Map<ScramMechanism, ScramCredential>> users;

    private CredentialStore(LineFile file, Map<String, Map<ScramMechanism, ScramCredential>> users) {
        this.file = file;
        this.users = users;
    }

    /** Opens the store in {@code directory}, creating it empty when there is none. */
    public static CredentialStore open(Path directory, LogFiles files) throws IOException {
        LineFile file = LineFile.in(directory, FILE, "SCRAM credential", 6, files);
        Map<String, Map<ScramMechanism, ScramCredential>> users = new TreeMap<>();
        Base64.Decoder b64 = Base64.getDecoder();
        file.forEachRecord(f -> {
            ScramMechanism mechanism = ScramMechanism.forSaslName(f[1])
                    .orElseThrow(() -> new IllegalArgumentException("unknown mechanism " + f[1]));
            users.computeIfAbsent(LineFile.decode(f[0]), u -> new EnumMap<>(ScramMechanism.class))
                    .put(
                            mechanism,
                            new ScramCredential(
                                    mechanism,
                                    b64.decode(f[3]),
                                    Integer.parseInt(f[2]),
                                    b64.decode(f[4]),
                                    b64.decode(f[5])));
        });
        return new CredentialStore(file, freeze(users));
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
        file.replace(lines(next));
        users = freeze(next);
    }

    /** A credential to remove. */
    public record Deletion(String user, ScramMechanism mechanism) {}

    /** A credential to add or replace. */
    public record ScramCredentialUpsert(String user, ScramCredential credential) {}

    private static List<String> lines(Map<String, Map<ScramMechanism, ScramCredential>> users) {
        List<String> lines = new ArrayList<>();
        Base64.Encoder b64 = Base64.getEncoder();
        users.forEach((user, credentials) -> credentials
                .values()
                .forEach(c -> lines.add(String.join(
                        " ",
                        LineFile.encode(user),
                        c.mechanism().saslName(),
                        Integer.toString(c.iterations()),
                        b64.encodeToString(c.salt()),
                        b64.encodeToString(c.storedKey()),
                        b64.encodeToString(c.serverKey())))));
        return lines;
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
