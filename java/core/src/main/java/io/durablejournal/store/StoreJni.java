package io.durablejournal.store;

import io.durablejournal.DurableExecutionContext;
import io.durablejournal.internal.NativeLibrary;
import io.durablejournal.store.internal.InFlightEntries;
import io.durablejournal.store.internal.ResumingEntry;
import java.util.List;
import java.util.Objects;

/**
 * JNI entry points of rust/jni/store.rs: the native store's. An entry crosses as one {@link EntryKey},
 * a call about a whole business key as its {@link BusinessKey}; strings cross as UTF-8. The owner
 * (a {@link NativeKeyedStore}, through its {@code NativeHandle}) checks for close, serializes
 * calls and never passes 0.
 */
final class StoreJni {
    static {
        NativeLibrary.load();
    }

    private StoreJni() {}

    static native long openMemory();

    /**
     * @param groupCommit 0: fsync each put; n &gt; 0: one fsync per n records
     * @param minGarbageBytes negative: the default compaction policy
     * @param permissionCheck a {@link FileStoreOptions.PermissionCheck} ordinal
     * @param retainMillis 0: completed actions are not retained; else their age bound
     * @param planDigest UTF-8, or null
     */
    static native long openFile(byte[] dir, int groupCommit, long minGarbageBytes, double garbageRatio, int permissionCheck,
            long retainMillis, long retainCount, byte[] planDigest);

    /** What opening the file store found about its directory's permissions, UTF-8 (null: nothing to say). */
    static native byte[] permissionWarning(long handle);

    /** The retained actions of a store directory as a JSON array (rust/store/file/retention/json.rs). */
    static native byte[] readRetained(byte[] dir);

    /** The live entries of a store directory that are not completed, in the same JSON shape. */
    static native byte[] readInFlight(byte[] dir);

    static native void close(long handle);

    static native void put(long handle, EntryKey key, byte[] stateJson);

    static native byte[] get(long handle, EntryKey key);

    /** The entry split for {@code ActionStateStore.getResuming}, built by rust/jni/store/resuming.rs ({@code get_resuming}), or null. */
    static native ResumingEntry getResuming(long handle, EntryKey key);

    /** The store's interrupted entries as {@code getResuming} answers them, built by rust/jni/store/in_flight.rs. */
    static native InFlightEntries inFlightEntries(long handle, long maxBytes);

    /**
     * A new context over a native journal whose mutations persist into this store; the native side
     * builds the {@link DurableExecutionContext} around its journal, so no raw handle reaches Java.
     */
    static native DurableExecutionContext openContext(long handle, EntryKey key, byte[] initialStateJson);

    static native void prune(long handle, BusinessKey key, long seqUpTo);

    /**
     * Every store's marker, the same way: the log store's reads the log's end through its
     * transport and waits for the writes submitted before that read (rust/store/shared.rs).
     */
    static native byte[] recoveryMarker(long handle);

    /** Every store's restore; the log store's reads the log's end through its transport. */
    static native void rebuildState(long handle, byte[][] markers);

    /** A checkpoint's markers as {@link #rebuildState} takes them, each checked non-null. */
    static byte[][] markerArray(List<byte[]> recoveryMarkers) {
        Objects.requireNonNull(recoveryMarkers, "recoveryMarkers");
        byte[][] markers = new byte[recoveryMarkers.size()][];
        for (int i = 0; i < markers.length; i++) {
            markers[i] = Objects.requireNonNull(recoveryMarkers.get(i), "recoveryMarkers[" + i + "]");
        }
        return markers;
    }

    static native void sync(long handle);

    /** The UTF-8 root occurrence id (spec §3) of input {@code seq} of a business key. */
    static native byte[] rootOccurrence(BusinessKey key, long seq);

    /** Built natively through {@link StoreStats}' constructor. */
    static native StoreStats stats(long handle);
}
