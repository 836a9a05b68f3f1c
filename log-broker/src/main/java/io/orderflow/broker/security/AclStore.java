package io.orderflow.broker.security;

import io.orderflow.broker.log.LogFiles;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Base64;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.function.Predicate;
import org.apache.kafka.common.acl.AclOperation;
import org.apache.kafka.common.acl.AclPermissionType;
import org.apache.kafka.common.resource.PatternType;
import org.apache.kafka.common.resource.ResourceType;

/**
 * Every ACL, kept in one file ({@code acls} in the security directory), one line per ACL: resource type, pattern
 * type, operation and permission by name, then resource name, principal and host in base64url. Each change
 * rewrites the file whole with {@link LogFiles#replace} (fsync, rename, directory fsync) before CreateAcls or
 * DeleteAcls is answered, so what was acknowledged survives kill -9 and power loss.
 *
 * <p>Thread-safety: reads see an immutable snapshot and take no lock; changes are serialised.
 */
public final class AclStore {
    static final String FILE = "acls";

    private final Path file;
    private final LogFiles files;
    private volatile List<AclEntry> acls;

    private AclStore(Path file, LogFiles files, List<AclEntry> acls) {
        this.file = file;
        this.files = files;
        this.acls = acls;
    }

    public static AclStore open(Path directory, LogFiles files) throws IOException {
        Files.createDirectories(directory);
        Path file = directory.resolve(FILE);
        List<AclEntry> acls = new ArrayList<>();
        if (Files.exists(file)) {
            List<String> lines = Files.readAllLines(file, StandardCharsets.US_ASCII);
            for (int i = 0; i < lines.size(); i++) {
                if (!lines.get(i).isBlank()) {
                    acls.add(read(lines.get(i), file, i + 1));
                }
            }
        }
        return new AclStore(file, files, List.copyOf(acls));
    }

    private static AclEntry read(String line, Path file, int number) {
        String[] f = line.split(" ");
        try {
            if (f.length != 7) {
                throw new IllegalArgumentException("expected 7 fields, found " + f.length);
            }
            return new AclEntry(
                    ResourceType.valueOf(f[0]),
                    decode(f[4]),
                    PatternType.valueOf(f[1]),
                    decode(f[5]),
                    decode(f[6]),
                    AclOperation.valueOf(f[2]),
                    AclPermissionType.valueOf(f[3]));
        } catch (IllegalArgumentException e) {
            throw new IllegalStateException("Unreadable ACL at " + file + " line " + number + ": " + e.getMessage(), e);
        }
    }

    public List<AclEntry> all() {
        return acls;
    }

    /** Adds {@code added} (an ACL already there stays once) and makes it durable. */
    public synchronized void add(List<AclEntry> added) {
        Set<AclEntry> next = new LinkedHashSet<>(acls);
        next.addAll(added);
        write(List.copyOf(next));
    }

    /** Removes every ACL {@code doomed} accepts, durably, and returns them. */
    public synchronized List<AclEntry> remove(Predicate<AclEntry> doomed) {
        List<AclEntry> removed = acls.stream().filter(doomed).toList();
        if (!removed.isEmpty()) {
            write(acls.stream().filter(doomed.negate()).toList());
        }
        return removed;
    }

    private void write(List<AclEntry> next) {
        StringBuilder out = new StringBuilder();
        for (AclEntry a : next) {
            out.append(a.resourceType().name())
                    .append(' ')
                    .append(a.patternType().name())
                    .append(' ')
                    .append(a.operation().name())
                    .append(' ')
                    .append(a.permission().name())
                    .append(' ')
                    .append(encode(a.resourceName()))
                    .append(' ')
                    .append(encode(a.principal()))
                    .append(' ')
                    .append(encode(a.host()))
                    .append('\n');
        }
        try {
            files.replace(file, ByteBuffer.wrap(out.toString().getBytes(StandardCharsets.US_ASCII)));
        } catch (IOException e) {
            throw new UncheckedIOException("Cannot write " + file, e);
        }
        acls = List.copyOf(next);
    }

    private static String encode(String s) {
        return Base64.getUrlEncoder().encodeToString(s.getBytes(StandardCharsets.UTF_8));
    }

    private static String decode(String s) {
        return new String(Base64.getUrlDecoder().decode(s), StandardCharsets.UTF_8);
    }
}
