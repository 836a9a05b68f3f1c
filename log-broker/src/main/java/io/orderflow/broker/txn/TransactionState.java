package io.orderflow.broker.txn;

/**
 * Where a transactional id's current transaction stands, as Kafka's coordinator names it (the names are what
 * DescribeTransactions and ListTransactions answer, and what {@code kafka-transactions.sh} prints).
 *
 * <pre>
 * EMPTY --AddPartitions/AddOffsets--> ONGOING --EndTxn(commit)--> PREPARE_COMMIT --markers--> COMPLETE_COMMIT
 *                                        |----EndTxn(abort), timeout, InitProducerId, restart--> PREPARE_ABORT
 *                                                                                    --markers--> COMPLETE_ABORT
 * COMPLETE_* --AddPartitions--> ONGOING;  EMPTY or COMPLETE_* --InitProducerId--> EMPTY (next epoch)
 * </pre>
 */
public enum TransactionState {
    EMPTY("Empty", (byte) 0),
    ONGOING("Ongoing", (byte) 1),
    PREPARE_COMMIT("PrepareCommit", (byte) 2),
    PREPARE_ABORT("PrepareAbort", (byte) 3),
    COMPLETE_COMMIT("CompleteCommit", (byte) 4),
    COMPLETE_ABORT("CompleteAbort", (byte) 5);

    private final String kafkaName;
    private final byte id;

    TransactionState(String kafkaName, byte id) {
        this.kafkaName = kafkaName;
        this.id = id;
    }

    /** The name Kafka's tools print and filter by. */
    public String kafkaName() {
        return kafkaName;
    }

    byte id() {
        return id;
    }

    static TransactionState ofId(byte id) {
        for (TransactionState s : values()) {
            if (s.id == id) {
                return s;
            }
        }
        throw new IllegalArgumentException("no transaction state has id " + id);
    }

    /** The state named {@code kafkaName}, for ListTransactions' filter; null when none is. */
    public static TransactionState ofKafkaName(String kafkaName) {
        for (TransactionState s : values()) {
            if (s.kafkaName.equals(kafkaName)) {
                return s;
            }
        }
        return null;
    }

    boolean isPrepared() {
        return this == PREPARE_COMMIT || this == PREPARE_ABORT;
    }
}
