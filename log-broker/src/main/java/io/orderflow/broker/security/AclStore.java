package io.orderflow.broker.security;

import io.orderflow.broker.log.LineFile;
import io.orderflow.broker.log.LogFiles;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.util.ArrayList;
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
 * rewrites the file whole ({@link LineFile#replace}: fsync, rename, directory fsync) before CreateAcls or
 * DeleteAcls is answered, so what was acknowledged survives kill -9 and power loss.
 *
 * <p>Thread-safety: reads see an immutable snapshot and take no lock; changes are serialised.
 */
public final class AclStore {
    static final String FILE = "acls";

    private final LineFile file;
    private volatile List<AclEntry> acls;

    private AclStore(LineFile file, List<AclEntry> acls) {
        this.file = file;
        this.acls = acls;
    }

    public static AclStore open(Path directory, LogFiles files) throws IOException {
        LineFile file = LineFile.in(directory, FILE, "ACL", 7, files);
        List<AclEntry> acls = new ArrayList<>();
        file.forEachRecord(f -> acls.add(new AclEntry(
                ResourceType.valueOf(f[0]),
                LineFile.decode(f[4]),
                PatternType.valueOf(f[1]),
                LineFile.decode(f[5]),
                LineFile.decode(f[6]),
                AclOperation.valueOf(f[2]),
                AclPermissionType.valueOf(f[3]))));
        return new AclStore(file, List.copyOf(acls));
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

    /** @throws UncheckedIOException when the file cannot be written; nothing changed then */
    private void write(List<AclEntry> next) {
        file.replace(next.stream()
                .map(a -> String.join(
                        " ",
                        a.resourceType().name(),
                        a.patternType().name(),
                        a.operation().name(),
                        a.permission().name(),
                        LineFile.encode(a.resourceName()),
                        LineFile.encode(a.principal()),
                        LineFile.encode(a.host())))
                .toList());
        acls = List.copyOf(next);
    }
}
