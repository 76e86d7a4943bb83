package io.durablejournal.store;

import io.durablejournal.internal.CalledFromNative;

/**
 * Counters of a {@link LogActionStateStore} since it was opened. Built by the native store
 * ({@code stats} in rust/jni/log_store.rs).
 */
public final class LogStoreStats extends AppendCounters {
    private final long tombstonesAppended;
    private final long tombstonesPending;
    private final long recordsLoaded;

    @CalledFromNative
    private LogStoreStats(long entries, long recordsAppended, long bytesAppended, long tombstonesAppended,
            long tombstonesPending, long recordsLoaded) {
        super(entries, recordsAppended, bytesAppended);
        this.tombstonesAppended = tombstonesAppended;
        this.tombstonesPending = tombstonesPending;
        this.recordsLoaded = recordsLoaded;
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
        return "LogStoreStats{" + appendCounters() + ", tombstonesAppended=" + tombstonesAppended + ", tombstonesPending="
                + tombstonesPending + ", recordsLoaded=" + recordsLoaded + "}";
    }
}
