package io.durablejournal.store;

/**
 * Counters of a store since it was opened, and what opening it found. Fields that only the file
 * store has are -1 for the in-memory store.
 */
public final class StoreStats {
    private final long[] v;

    StoreStats(long[] values) {
        this.v = values.clone();
    }

    /** Live entries. */
    public long entries() {
        return v[0];
    }

    /** Mutation records appended since open. */
    public long recordsAppended() {
        return v[1];
    }

    /** Bytes of mutation records appended since open (frames included); -1 for the in-memory store, which writes none. */
    public long bytesAppended() {
        return v[2];
    }

    public long syncs() {
        return v[3];
    }

    public long compactions() {
        return v[4];
    }

    /** Current size of the live segment file. */
    public long segmentBytes() {
        return v[5];
    }

    /** Bytes of the segment that the live entries are built from. */
    public long liveBytes() {
        return v[6];
    }

    /** Records read back from the log when the store was opened. */
    public long recoveredRecords() {
        return v[7];
    }

    /** Bytes of a final record cut short by a crash and dropped on open, or -1 when there was none. */
    public long tornTailBytes() {
        return v[8];
    }

    /** Whether opening created a new store (1), found one (0), or -1 for the in-memory store. */
    public long createdOnOpen() {
        return v[9];
    }

    @Override
    public String toString() {
        return "StoreStats{entries=" + entries() + ", recordsAppended=" + recordsAppended() + ", bytesAppended=" + bytesAppended()
                + ", syncs=" + syncs() + ", compactions=" + compactions() + ", segmentBytes=" + segmentBytes()
                + ", recoveredRecords=" + recoveredRecords() + ", tornTailBytes=" + tornTailBytes() + "}";
    }
}
