package io.orderflow.ops.backup;

import java.nio.file.Path;
import java.time.Clock;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/**
 * {@code ops/bin/backup --to DIR}: a {@link PlatformBackup} of the running {@code ./run-platform}. Exit code 0 with the
 * backup's summary, 1 when it could not be taken (the message says why), 2 for a bad command line.
 */
@Command(
        name = "ops/bin/backup",
        mixinStandardHelpOptions = true,
        sortOptions = false,
        description = "Backs up the running platform (./run-platform) without stopping it: the broker's log, every"
                + " service's database (one PostgreSQL base backup) and the secrets. ops/bin/restore brings it up.")
public final class BackupMain implements Callable<Integer> {

    @Option(names = "--to", required = true, paramLabel = "DIR", description = "a new or empty directory")
    private Path target;

    @Option(
            names = "--postgres-dir",
            defaultValue = ".orderflow/postgres",
            paramLabel = "DIR",
            description = "the platform's PostgreSQL directory, as given to ./run-platform (default: ${DEFAULT-VALUE})")
    private Path postgresDirectory;

    @Option(
            names = "--broker-dir",
            defaultValue = ".orderflow/broker",
            paramLabel = "DIR",
            description = "the broker's log directory, as given to ./run-platform (default: ${DEFAULT-VALUE})")
    private Path brokerDirectory;

    @Spec
    private CommandSpec spec;

    public static void main(String[] args) {
        System.exit(new CommandLine(new BackupMain()).execute(args));
    }

    @Override
    public Integer call() throws Exception {
        try {
            PlatformBackup.Manifest manifest =
                    PlatformBackup.take(postgresDirectory, brokerDirectory, target, Clock.systemUTC());
            spec.commandLine()
                    .getOut()
                    .printf(
                            "backup in %s: %s; broker copy began %s%nrestore: ops/bin/restore --from %s"
                                    + " --postgres-dir NEW/postgres --broker-dir NEW/broker%n",
                            target, manifest.summary(), manifest.brokerCopyStarted(), target);
            return 0;
        } catch (IllegalStateException e) {
            spec.commandLine().getErr().println("backup: " + e.getMessage());
            return 1;
        }
    }
}
