package io.durablejournal.store;

import io.durablejournal.internal.CalledFromNative;

/**
 * The {@link StoreStats} of a {@link LogActionStateStore}: its append counters, tombstones and
 * records loaded; it keeps none of the file store's counters. Built by the native store ({@code
 * stats} in rust/jni/log_store.rs).
 */
public final class LogStoreStats extends StoreStats {
    @CalledFromNative
    private LogStoreStats(long entries, long recordsAppended, long bytesAppended, long tombstonesAppended,
            long tombstonesPending, long recordsLoaded) {
        super(entries, recordsAppended, bytesAppended, NOT_KEPT, NOT_KEPT, NOT_KEPT, NOT_KEPT, NOT_KEPT, NOT_KEPT, NOT_KEPT,
                tombstonesAppended, tombstonesPending, recordsLoaded);
    }
}
