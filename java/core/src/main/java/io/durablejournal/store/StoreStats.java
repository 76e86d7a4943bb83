package io.durablejournal.store;

import io.durablejournal.internal.CalledFromNative;
import java.util.StringJoiner;

/**
 * Counters of a native store since it was opened, and what opening it found: one class for every
 * store, each counter {@value #NOT_KEPT} where the store does not keep it (the in-memory store
 * writes nothing, only the file store has segments and fsyncs, only the log store has tombstones
 * and loads records). A new store adds the counters it has to {@link Counter}, not a stats class.
 * Built by the native store ({@code stats} in rust/jni/store.rs; {@link LogStoreStats} in
 * rust/jni/log_store.rs).
 */
public class StoreStats {
    /** What a store reports for a counter it does not keep. */
    public static final long NOT_KEPT = -1;

    /** The counters, in the order {@link #StoreStats(long...)} takes them; named as their getters, for {@link #toString}. */
    enum Counter {
        entries, recordsAppended, bytesAppended, syncs, compactions, segmentBytes, liveBytes, recoveredRecords,
        tornTailBytes, createdOnOpen, tombstonesAppended, tombstonesPending, recordsLoaded
    }

    private final long[] counters;

    /** The file and in-memory stores' counters: they have no tombstones and load no records. */
    @CalledFromNative
    private StoreStats(long entries, long recordsAppended, long bytesAppended, long syncs, long compactions,
            long segmentBytes, long liveBytes, long recoveredRecords, long tornTailBytes, long createdOnOpen) {
        this(entries, recordsAppended, bytesAppended, syncs, compactions, segmentBytes, liveBytes, recoveredRecords,
                tornTailBytes, createdOnOpen, NOT_KEPT, NOT_KEPT, NOT_KEPT);
    }

    /** @param counters a value for each {@link Counter}, in its order */
    StoreStats(long... counters) {
        if (counters.length != Counter.values().length) {
            throw new IllegalArgumentException(counters.length + " counters, expected one per StoreStats.Counter");
        }
        this.counters = counters;
    }

    private long get(Counter counter) {
        return counters[counter.ordinal()];
    }

    /** Live entries (for a log store, those of the key groups loaded here). */
    public long entries() {
        return get(Counter.entries);
    }

    /**
     * Records appended since open: mutation records (file store), or records the log acknowledged,
     * tombstones included (log store); -1 for the in-memory store, which writes none.
     */
    public long recordsAppended() {
        return get(Counter.recordsAppended);
    }

    /**
     * Their bytes: frames included for the file store, keys and values for the log store; -1 for
     * the in-memory store, which writes none.
     */
    public long bytesAppended() {
        return get(Counter.bytesAppended);
    }

    /** Fsyncs of the file store. */
    public long syncs() {
        return get(Counter.syncs);
    }

    /** Compactions of the file store. */
    public long compactions() {
        return get(Counter.compactions);
    }

    /** Current size of the file store's live segment file. */
    public long segmentBytes() {
        return get(Counter.segmentBytes);
    }

    /** Bytes of the segment that the live entries are built from. */
    public long liveBytes() {
        return get(Counter.liveBytes);
    }

    /** Records the file store read back from its log when it was opened. */
    public long recoveredRecords() {
        return get(Counter.recoveredRecords);
    }

    /** Bytes of a final record cut short by a crash and dropped on open, or -1 when there was none. */
    public long tornTailBytes() {
        return get(Counter.tornTailBytes);
    }

    /** Whether opening created a new file store (1), found one (0), or -1 for the other stores. */
    public long createdOnOpen() {
        return get(Counter.createdOnOpen);
    }

    /** Tombstones the log store appended for pruned entries. */
    public long tombstonesAppended() {
        return get(Counter.tombstonesAppended);
    }

    /** Tombstones of pruned entries waiting to go out with the log store's next append or marker. */
    public long tombstonesPending() {
        return get(Counter.tombstonesPending);
    }

    /** Records of the log store's history and key groups read back from the log and applied. */
    public long recordsLoaded() {
        return get(Counter.recordsLoaded);
    }

    /** The counters the store keeps, by name. */
    @Override
    public String toString() {
        StringJoiner kept = new StringJoiner(", ", getClass().getSimpleName() + "{", "}");
        for (Counter counter : Counter.values()) {
            if (get(counter) != NOT_KEPT) {
                kept.add(counter + "=" + get(counter));
            }
        }
        return kept.toString();
    }
}
