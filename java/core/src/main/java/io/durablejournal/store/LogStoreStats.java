package io.durablejournal.store;

import io.durablejournal.internal.CalledFromNative;

/**
 * Counters of a {@link LogActionStateStore} since it was opened. Built by the native store
 * ({@code stats} in rust/jni/log_store.rs).
 */
public final class LogStoreStats {
    private final long entries;
    private final long recordsAppended;
    private final long bytesAppended;
    private final long tombstonesAppended;
    private final long tombstonesPending;
    private final long recordsLoaded;

    @CalledFromNative
    private LogStoreStats(long entries, long recordsAppended, long bytesAppended, long tombstonesAppended,
            long tombstonesPending, long recordsLoaded) {
        this.entries = entries;
        this.recordsAppended = recordsAppended;
        this.bytesAppended = bytesAppended;
        this.tombstonesAppended = tombstonesAppended;
        this.tombstonesPending = tombstonesPending;
        this.recordsLoaded = recordsLoaded;
    }

    /** Live entries in memory. */
    public long entries() {
        return entries;
    }

    /** Records appended and acknowledged by the log, tombstones included. */
    public long recordsAppended() {
        return recordsAppended;
    }

    /** Their keys and values, in bytes. */
    public long bytesAppended() {
        return bytesAppended;
    }

    public long tombstonesAppended() {
        return tombstonesAppended;
    }

    /** Tombstones of pruned entries waiting to go out with the next append or marker. */
    public long tombstonesPending() {
        return tombstonesPending;
    }

    /** Records of this store's history and key groups read back from the log and applied. */
    public long recordsLoaded() {
        return recordsLoaded;
    }

    @Override
    public String toString() {
        return "LogStoreStats{entries=" + entries + ", recordsAppended=" + recordsAppended + ", bytesAppended="
                + bytesAppended + ", tombstonesAppended=" + tombstonesAppended + ", tombstonesPending="
                + tombstonesPending + ", recordsLoaded=" + recordsLoaded + "}";
    }
}
