package io.durablejournal.store;

/** Counters of a {@link LogActionStateStore} since it was opened. */
public final class LogStoreStats {
    private final long[] v;

    LogStoreStats(long[] values) {
        this.v = values.clone();
    }

    /** Live entries in memory. */
    public long entries() {
        return v[0];
    }

    /** Records appended and acknowledged by the log, tombstones included. */
    public long recordsAppended() {
        return v[1];
    }

    /** Their keys and values, in bytes. */
    public long bytesAppended() {
        return v[2];
    }

    public long tombstonesAppended() {
        return v[3];
    }

    /** Tombstones of pruned entries waiting to go out with the next append or marker. */
    public long tombstonesPending() {
        return v[4];
    }

    /** Records of this store's history and key groups read back from the log and applied. */
    public long recordsLoaded() {
        return v[5];
    }

    @Override
    public String toString() {
        return "LogStoreStats{entries=" + entries() + ", recordsAppended=" + recordsAppended() + ", bytesAppended="
                + bytesAppended() + ", tombstonesAppended=" + tombstonesAppended() + ", tombstonesPending="
                + tombstonesPending() + ", recordsLoaded=" + recordsLoaded() + "}";
    }
}
