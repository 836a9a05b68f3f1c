package io.orderflow.compatibility;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The history of a transactional workload and the anomalies in it, in the manner of Jepsen's Kafka test: writers
 * record what each transaction wrote and how it ended as far as they know (committed, aborted, or unknown when the
 * call failed with the broker gone); readers record what a {@code read_committed} consumer saw, partition by
 * partition, in order. {@link #anomalies} then names every
 *
 * <ul>
 *   <li><b>aborted read</b>: a value of a transaction its writer aborted was read;
 *   <li><b>lost write</b>: a value of a transaction whose commit returned is missing from the final read;
 *   <li><b>non-atomic transaction</b>: some but not all values of a transaction are in the final read (an unknown
 *       outcome may go either way, but not half);
 *   <li><b>uncommitted read</b>: a value read while the workload ran that the final read does not hold (it was read
 *       before its transaction ended, and the transaction did not commit);
 *   <li><b>order violation</b>: one writer's values in one partition out of the order it wrote them, or a reader's
 *       sequence of a partition that is not a prefix of the final read's.
 * </ul>
 *
 * Values are {@code writer-transaction-index}, unique across the run. Thread-safe for recording.
 */
final class TransactionalChecker {
    enum Outcome {
        COMMITTED,
        ABORTED,
        UNKNOWN
    }

    /** One transaction: its values by partition in the order written, and its outcome as the writer knows it. */
    record Transaction(String id, Map<Integer, List<String>> writes, Outcome outcome) {}

    private final Map<String, Transaction> transactions = new ConcurrentHashMap<>();
    /** What the live readers saw: partition -> values in offset order, one list per reader pass. */
    private final List<Map<Integer, List<String>>> liveReads = new ArrayList<>();

    void transaction(String id, Map<Integer, List<String>> writes, Outcome outcome) {
        transactions.put(id, new Transaction(id, Map.copyOf(writes), outcome));
    }

    synchronized void liveRead(Map<Integer, List<String>> byPartition) {
        liveReads.add(byPartition);
    }

    long count(Outcome outcome) {
        return transactions.values().stream()
                .filter(t -> t.outcome() == outcome)
                .count();
    }

    /** The anomalies of the history, given the final read of every partition (values in offset order). */
    synchronized List<String> anomalies(Map<Integer, List<String>> finalRead) {
        List<String> anomalies = new ArrayList<>();
        Map<String, Integer> finalPosition = new HashMap<>();
        Map<String, Integer> finalPartition = new HashMap<>();
        finalRead.forEach((p, values) -> {
            for (int i = 0; i < values.size(); i++) {
                if (finalPosition.put(values.get(i), i) != null) {
                    anomalies.add("duplicate: " + values.get(i) + " twice in partition " + p);
                }
                finalPartition.put(values.get(i), p);
            }
        });
        for (Transaction t : transactions.values()) {
            int present = 0;
            int total = 0;
            for (List<String> values : t.writes().values()) {
                for (String v : values) {
                    total++;
                    if (finalPosition.containsKey(v)) {
                        present++;
                    }
                }
            }
            if (t.outcome() == Outcome.ABORTED && present > 0) {
                anomalies.add("aborted read: " + present + " of " + total + " values of aborted " + t.id());
            }
            if (t.outcome() == Outcome.COMMITTED && present < total) {
                anomalies.add("lost write: " + (total - present) + " of " + total + " values of committed " + t.id());
            }
            if (t.outcome() == Outcome.UNKNOWN && present > 0 && present < total) {
                anomalies.add("non-atomic transaction: " + present + " of " + total + " values of " + t.id());
            }
        }
        // One writer's values in one partition, in the order written: transaction number, then index.
        Map<String, List<String>> byWriterPartition = new LinkedHashMap<>();
        finalRead.forEach((p, values) -> {
            for (String v : values) {
                String writer = v.substring(0, v.indexOf('-'));
                byWriterPartition
                        .computeIfAbsent(writer + "/" + p, k -> new ArrayList<>())
                        .add(v);
            }
        });
        byWriterPartition.forEach((key, values) -> {
            for (int i = 1; i < values.size(); i++) {
                if (compare(values.get(i - 1), values.get(i)) >= 0) {
                    anomalies.add("order violation: " + values.get(i - 1) + " before " + values.get(i) + " in " + key);
                }
            }
        });
        for (Map<Integer, List<String>> read : liveReads) {
            read.forEach((p, values) -> {
                List<String> whole = finalRead.getOrDefault(p, List.of());
                for (int i = 0; i < values.size(); i++) {
                    String v = values.get(i);
                    if (!finalPosition.containsKey(v)) {
                        anomalies.add("uncommitted read: " + v + " read live in partition " + p
                                + " but not in the final read");
                    } else if (i >= whole.size() || !whole.get(i).equals(v)) {
                        anomalies.add("order violation: live read of partition " + p + " has " + v + " at " + i
                                + ", the final read " + (i < whole.size() ? whole.get(i) : "nothing"));
                        break;
                    }
                }
            });
        }
        return anomalies;
    }

    /** Orders two values of one writer: by transaction number, then index. */
    private static int compare(String a, String b) {
        String[] x = a.split("-");
        String[] y = b.split("-");
        int byTxn = Integer.compare(Integer.parseInt(x[1]), Integer.parseInt(y[1]));
        return byTxn != 0 ? byTxn : Integer.compare(Integer.parseInt(x[2]), Integer.parseInt(y[2]));
    }

    Set<String> transactionIds() {
        return transactions.keySet();
    }
}
