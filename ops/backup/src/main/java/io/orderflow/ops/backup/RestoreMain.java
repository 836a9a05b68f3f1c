package io.orderflow.ops.backup;

import java.nio.file.Path;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/**
 * {@code ops/bin/restore --from DIR --postgres-dir P --broker-dir B}: a {@link PlatformRestore}. Exit code 0 with what
 * it did and the command that starts the restored platform, 1 when it could not restore, 2 for a bad command line.
 */
@Command(
        name = "ops/bin/restore",
        mixinStandardHelpOptions = true,
        sortOptions = false,
        description = "Brings a backup of ops/bin/backup up on new directories, with the recovery rule applied (outbox"
                + " rows published since the broker's copy began are published again), ready for ./run-platform.")
public final class RestoreMain implements Callable<Integer> {

    @Option(names = "--from", required = true, paramLabel = "DIR", description = "the backup")
    private Path backup;

    @Option(
            names = "--postgres-dir",
            required = true,
            paramLabel = "DIR",
            description = "a new PostgreSQL directory (its secrets go beside it, in ../secrets)")
    private Path postgresDirectory;

    @Option(names = "--broker-dir", required = true, paramLabel = "DIR", description = "a new broker directory")
    private Path brokerDirectory;

    @Spec
    private CommandSpec spec;

    public static void main(String[] args) {
        System.exit(new CommandLine(new RestoreMain()).execute(args));
    }

    @Override
    public Integer call() throws Exception {
        try {
            PlatformRestore.Restored restored = PlatformRestore.restore(backup, postgresDirectory, brokerDirectory);
            spec.commandLine()
                    .getOut()
                    .printf(
                            "restored %s; outbox rows to publish again: %s%nstart it: ./run-platform --postgres-dir"
                                    + " %s --broker-dir %s%n",
                            backup, restored.republished(), postgresDirectory, brokerDirectory);
            return 0;
        } catch (IllegalStateException e) {
            spec.commandLine().getErr().println("restore: " + e.getMessage());
            return 1;
        }
    }
}
