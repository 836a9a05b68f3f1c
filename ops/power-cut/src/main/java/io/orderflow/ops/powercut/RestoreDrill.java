package io.orderflow.ops.powercut;

import io.orderflow.ops.backup.BackupMain;
import io.orderflow.ops.backup.PlatformBackup;
import io.orderflow.ops.backup.RestoreMain;
import io.orderflow.ops.drill.DrillReport;
import io.orderflow.ops.drill.DrillTarget;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ThreadLocalRandom;
import picocli.CommandLine;

/**
 * {@code restore}: a backup of the running platform taken under orders, the orders going on after it, then the backup
 * restored on fresh directories and started, and everything acknowledged before the backup began judged on it.
 *
 * <p>The platform is the launcher of {@code ./run-platform} on a directory of the drill's ({@link LaunchedPlatform}),
 * its mails going to a {@link MailCatcher} outside it. Orders flow ({@link OrderTraffic}) for {@code interval}; {@code
 * ops/bin/backup} ({@link BackupMain}) runs while they go on; they go on for another {@code interval}; the platform
 * stops; {@code ops/bin/restore} ({@link RestoreMain}) brings the backup up on new directories, and the launcher starts
 * the restored platform. What the
 * journal says is judged by {@link PlatformInvariants} as of the backup: every step acknowledged before the backup
 * began is certain, every step acknowledged while it was taken uncertain (it may be in the backup or not), every order
 * placed while it was taken may exist or not, and nothing acknowledged after the backup ended may be there (an order
 * placed then would be invented). Orders acknowledged after the backup are lost with it, as with any backup; the
 * report counts them.
 *
 * <p>Not thread-safe; one run per instance.
 */
public final class RestoreDrill {
    public static final String NAME = "restore";
    static final String CUSTOMER_PREFIX = "restore-";
    private static final Duration READY_WITHIN = Duration.ofMinutes(4);
    private static final Duration CATCH_UP_WITHIN = Duration.ofMinutes(4);
    private static final int STOCK = 1_000_000;

    private final Path repository;
    private final Path work;
    private final int rate;
    private final Duration interval;

    public RestoreDrill(Path repository, Path work, int rate, Duration interval) {
        if (rate < 1 || interval.toSeconds() < 2) {
            throw new IllegalArgumentException(
                    "at least one order a second and 2 s of orders; were " + rate + ", " + interval);
        }
        this.repository = repository;
        this.work = work.toAbsolutePath().normalize();
        this.rate = rate;
        this.interval = interval;
    }

    public DrillReport run() throws Exception {
        DrillReport report = new DrillReport(NAME);
        Path run = work.resolve("run-" + System.currentTimeMillis());
        Files.createDirectories(run);
        MailCatcher mails = MailCatcher.start();
        try {
            run(report, run, mails);
        } finally {
            mails.stop();
        }
        return report;
    }

    private void run(DrillReport report, Path run, MailCatcher mails) throws Exception {
        Path originalHome = run.resolve("original");
        Path backup = run.resolve("backup");
        Path restoredHome = run.resolve("restored");
        Files.createDirectories(originalHome);
        LaunchedPlatform original = new LaunchedPlatform(repository, originalHome, originalHome, mails.smtpServer());
        OrderJournal asOfBackup;
        long sinceMillis;
        String sku = "sku-restore-" + ThreadLocalRandom.current().nextInt(1_000_000);
        try {
            original.start(READY_WITHIN);
            DrillTarget target = original.target();
            sinceMillis = System.currentTimeMillis();
            OrderTraffic.stock(target, sku, STOCK);
            report.step(
                    "started the platform on " + originalHome + " and stocked " + sku + " with " + STOCK + " units");
            try (OrderTraffic traffic = new OrderTraffic(target.orderService(), CUSTOMER_PREFIX, sku, rate)) {
                traffic.start();
                Thread.sleep(interval.toMillis()); // the orders run meanwhile: the backup is taken under load
                OrderJournal beforeBackup = traffic.journal(sinceMillis, STOCK);
                long started = System.nanoTime();
                command(
                        new BackupMain(),
                        "--to",
                        backup.toString(),
                        "--postgres-dir",
                        originalHome.resolve("postgres").toString(),
                        "--broker-dir",
                        originalHome.resolve("broker").toString());
                PlatformBackup.Manifest manifest = PlatformBackup.manifest(backup);
                double took = (System.nanoTime() - started) / 1e9;
                OrderJournal afterBackup = traffic.journal(sinceMillis, STOCK);
                report.step(String.format(
                        "backed up the running platform to %s in %.1f s under %d orders/s (%s)",
                        backup, took, rate, manifest.summary()));
                Thread.sleep(interval.toMillis()); // the orders go on after the backup, and are lost with it
                traffic.stop();
                asOfBackup = asOfBackup(beforeBackup, afterBackup);
                int lostWithBackup =
                        traffic.journal(sinceMillis, STOCK).placed().size()
                                - afterBackup.placed().size();
                report.step(String.format(
                        "%d orders acknowledged before the backup began, %d while it was taken, %d after it (lost"
                                + " with the backup, by design)",
                        beforeBackup.placed().size(),
                        afterBackup.placed().size() - beforeBackup.placed().size(),
                        lostWithBackup));
            }
        } finally {
            original.stop();
        }
        report.step("stopped the platform");

        long restoring = System.nanoTime();
        String restored = command(
                new RestoreMain(),
                "--from",
                backup.toString(),
                "--postgres-dir",
                restoredHome.resolve("postgres").toString(),
                "--broker-dir",
                restoredHome.resolve("broker").toString());
        LaunchedPlatform again = new LaunchedPlatform(repository, restoredHome, restoredHome, mails.smtpServer());
        try {
            again.start(READY_WITHIN);
            report.step(String.format(
                    "restored the backup on %s (%s) and started it; ready %.1f s after the restore began",
                    restoredHome, restored.lines().findFirst().orElse(""), (System.nanoTime() - restoring) / 1e9));
            Path journalFile = run.resolve("journal.json");
            asOfBackup.write(journalFile);
            report.step("judged what was acknowledged as of the backup (" + journalFile + ")");
            new PlatformInvariants(again.target()).check(report, asOfBackup, mails.mailbox(), CATCH_UP_WITHIN);
        } finally {
            again.stop();
        }
    }

    /** Runs {@code ops/bin/backup} or {@code ops/bin/restore} as the command line does; its output, if it succeeded. */
    private static String command(Object command, String... arguments) {
        StringWriter output = new StringWriter();
        int exit = new CommandLine(command)
                .setOut(new PrintWriter(output, true))
                .setErr(new PrintWriter(output, true))
                .execute(arguments);
        if (exit != 0) {
            throw new IllegalStateException(command.getClass().getSimpleName() + " " + String.join(" ", arguments)
                    + " exited with " + exit + ": " + output);
        }
        return output.toString();
    }

    /**
     * The journal as of a backup taken between {@code before} and {@code after}: what was acknowledged before it began
     * is certain; what was acknowledged or asked for since, uncertain; an order first placed since, of uncertain
     * placement; an order placed after {@code after} is not in it at all.
     */
    static OrderJournal asOfBackup(OrderJournal before, OrderJournal after) {
        Map<String, OrderJournal.Order> earlier = new HashMap<>();
        before.orders().forEach(order -> earlier.put(order.customer(), order));
        List<OrderJournal.Order> orders = new ArrayList<>();
        for (OrderJournal.Order later : after.orders()) {
            OrderJournal.Order then = earlier.get(later.customer());
            List<String> since = new ArrayList<>();
            int certain = then == null || then.orderId() == null
                    ? 0
                    : then.acknowledged().size();
            since.addAll(
                    later.acknowledged().subList(certain, later.acknowledged().size()));
            since.addAll(later.uncertain());
            if (certain > 0) {
                orders.add(new OrderJournal.Order(
                        later.customer(), later.sku(), later.orderId(), then.acknowledged(), since));
            } else if (!since.isEmpty()) {
                orders.add(new OrderJournal.Order(later.customer(), later.sku(), null, List.of(), since));
            }
        }
        return new OrderJournal(after.run(), orders);
    }
}
