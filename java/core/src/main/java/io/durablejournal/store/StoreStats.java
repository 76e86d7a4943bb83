package io.durablejournal.store;

import io.durablejournal.internal.CalledFromNative;

/**
 * Counters of a store since it was opened, and what opening it found. Fields that only the file
 * store has are -1 for the in-memory store. Built by the native store ({@code stats} in
 * rust/jni/store.rs).
 */
public final class StoreStats extends AppendCounters {
    private final long syncs;
    private final long compactions;
    private final long segmentBytes;
    private final long liveBytes;
    private final long recoveredRecords;
    private final long tornTailBytes;
    private final long createdOnOpen;

    @CalledFromNative
    private StoreStats(long entries, long recordsAppended, long bytesAppended, long syncs, long compactions,
            long segmentBytes, long liveBytes, long recoveredRecords, long tornTailBytes, long createdOnOpen) {
        super(entries, recordsAppended, bytesAppended);
        this.syncs = syncs;
        this.compactions = compactions;
        this.segmentBytes = segmentBytes;
        this.liveBytes = liveBytes;
        this.recoveredRecords = recoveredRecords;
        this.tornTailBytes = tornTailBytes;
        this.createdOnOpen = createdOnOpen;
    }

    public long syncs() {
        return syncs;
    }

    public long compactions() {
        return compactions;
    }

    /** Current size of the live segment file. */
    public long segmentBytes() {
        return segmentBytes;
    }

    /** Bytes of the segment that the live entries are built from. */
    public long liveBytes() {
        return liveBytes;
    }

    /** Records read back from the log when the store was opened. */
    public long recoveredRecords() {
        return recoveredRecords;
    }

    /** Bytes of a final record cut short by a crash and dropped on open, or -1 when there was none. */
    public long tornTailBytes() {
        return tornTailBytes;
    }

    /** Whether opening created a new store (1), found one (0), or -1 for the in-memory store. */
    public long createdOnOpen() {
        return createdOnOpen;
    }

    @Override
    public String toString() {
        return "StoreStats{" + appendCounters() + ", syncs=" + syncs + ", compactions=" + compactions + ", segmentBytes=" + segmentBytes
                + ", recoveredRecords=" + recoveredRecords + ", tornTailBytes=" + tornTailBytes + "}";
    }
}
