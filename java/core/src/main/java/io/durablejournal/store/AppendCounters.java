package io.durablejournal.store;

/**
 * What every native store counts since it was opened: its live entries and the records (and their
 * bytes) it appended. {@link StoreStats} and {@link LogStoreStats} add their own counters.
 */
abstract class AppendCounters {
    private final long entries;
    private final long recordsAppended;
    private final long bytesAppended;

    AppendCounters(long entries, long recordsAppended, long bytesAppended) {
        this.entries = entries;
        this.recordsAppended = recordsAppended;
        this.bytesAppended = bytesAppended;
    }

    /** Live entries (for a log store, those of the key groups loaded here). */
    public long entries() {
        return entries;
    }

    /**
     * Records appended since open: mutation records (file store), or records the log acknowledged,
     * tombstones included (log store); -1 for the in-memory store, which writes none.
     */
    public long recordsAppended() {
        return recordsAppended;
    }

    /**
     * Their bytes: frames included for the file store, keys and values for the log store; -1 for
     * the in-memory store, which writes none.
     */
    public long bytesAppended() {
        return bytesAppended;
    }

    /** {@code entries=…, recordsAppended=…, bytesAppended=…}, for the subclasses' {@code toString}. */
    String appendCounters() {
        return "entries=" + entries + ", recordsAppended=" + recordsAppended + ", bytesAppended=" + bytesAppended;
    }
}
