package io.durablejournal.store;

import io.durablejournal.DurableExecutionContext;
import io.durablejournal.internal.NativeLibrary;

/**
 * The native store's entry points (rust/jni/store.rs). Every keyed method takes the business key
 * as {@code (kind, number, bytes, typeName)} and the event as {@code (kind, bytes)}; strings cross
 * as UTF-8. The owner ({@link NativeActionStateStore}, through its {@code NativeHandle}) checks for close,
 * serializes calls and never passes 0.
 */
final class NativeStore {
    static {
        NativeLibrary.load();
    }

    private NativeStore() {}

    static native long openMemory();

    /**
     * @param groupCommit 0: fsync each put; n &gt; 0: one fsync per n records
     * @param minGarbageBytes negative: the default compaction policy
     */
    static native long openFile(byte[] dir, int groupCommit, long minGarbageBytes, double garbageRatio);

    static native void close(long handle);

    static native void put(long handle, int keyKind, long keyNumber, byte[] keyBytes, byte[] keyType,
            long seq, byte[] action, int eventKind, byte[] event, byte[] stateJson);

    static native byte[] get(long handle, int keyKind, long keyNumber, byte[] keyBytes, byte[] keyType,
            long seq, byte[] action, int eventKind, byte[] event);

    /** The entry split for {@code ActionStateStore.getResuming} (layout in rust/jni/store.rs, {@code get_split}), or null. */
    static native byte[] getResuming(long handle, int keyKind, long keyNumber, byte[] keyBytes, byte[] keyType,
            long seq, byte[] action, int eventKind, byte[] event);

    /**
     * A new context over a native journal whose mutations persist into this store; the native side
     * builds the {@link DurableExecutionContext} around its journal, so no raw handle reaches Java.
     */
    static native DurableExecutionContext openContext(long handle, int keyKind, long keyNumber, byte[] keyBytes, byte[] keyType,
            long seq, byte[] action, int eventKind, byte[] event, byte[] initialStateJson);

    static native void prune(long handle, int keyKind, long keyNumber, byte[] keyBytes, byte[] keyType, long seqUpTo);

    static native byte[] recoveryMarker(long handle);

    static native void rebuildState(long handle, byte[][] markers);

    static native void sync(long handle);

    /** The UTF-8 root occurrence id (spec §3) of input {@code seq} of a business key. */
    static native byte[] rootOccurrence(int keyKind, long keyNumber, byte[] keyBytes, byte[] keyType, long seq);

    /** See {@link StoreStats} for the layout. */
    static native long[] stats(long handle);
}
