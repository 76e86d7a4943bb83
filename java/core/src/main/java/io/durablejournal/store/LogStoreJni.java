package io.durablejournal.store;

import io.durablejournal.internal.NativeLibrary;

/**
 * JNI entry points of rust/jni/log_store.rs: the native log-backed store's own. Its handle is an
 * ordinary native store handle: {@link StoreJni}'s put, get, openContext, prune, sync and close
 * work on it too, and so do recoveryMarker and rebuildState
 * (the native store reads the log's end through its transport). Keys cross as in {@link StoreJni}. The owner ({@link
 * LogActionStateStore}) checks for close and never passes 0.
 */
final class LogStoreJni {
    static {
        NativeLibrary.load();
    }

    private LogStoreJni() {}

    /** A store appending through {@code transport.append}, owning key groups {@code first..last}. */
    static native long open(LogTransport transport, byte[] name, byte[] logId, int partitions, int maxParallelism,
            int firstKeyGroup, int lastKeyGroup);

    /** Limits records (key and value bytes) to what the log accepts; {@code setting} names the limit in errors. */
    static native void limitRecords(long handle, long maxRecordBytes, byte[] setting);

    static native void startFresh(long handle, byte[] lineage);

    static native void continueHistory(long handle, byte[] lineage);

    /** The partitions to read to load key groups {@code first..last}. */
    static native int[] beginLoad(long handle, int firstKeyGroup, int lastKeyGroup);

    static native void ingest(long handle, int firstKeyGroup, int lastKeyGroup, int partition, long[] offsets,
            byte[][] keys, byte[][] values);

    static native void finishLoad(long handle, int firstKeyGroup, int lastKeyGroup);

    /** -1 when the key group is loaded, else the partition to load it from. */
    static native int bindKeyGroup(long handle, BusinessKey key, int keyGroup);

    /**
     * {@link #bindKeyGroup} for a key group the caller names ({@link GroupedKey}): the key's new
     * entries go to it, its entries held in another key group stay there.
     */
    static native int bindNamedKeyGroup(long handle, BusinessKey key, int keyGroup);

    static native void pruneAt(long handle, BusinessKey key, long seq);

    /** Per partition, the offset loading reads from (after a restore, its markers' smallest start). */
    static native long[] readFrom(long handle);

    /** Another handle on the same store, for a call on another thread; free it with {@link #releaseShare}. */
    static native long share(long handle);

    /** Frees a handle from {@link #share}; the store stays open. */
    static native void releaseShare(long share);

    /**
     * Copies each action that completes from now on to {@code retained} (another log: rust/store/log/retention.rs),
     * partition {@code partition}, under keys of {@code writer} (16 bytes, this store's own).
     */
    static native void retainCompleted(long handle, LogTransport retained, byte[] name, long maxAgeMillis, long maxCount,
            byte[] planDigest, byte[] writer, int partition);

    /** Why retention stopped (UTF-8), or null. */
    static native byte[] retentionError(long handle);

    /** The retained copies in a dump of a retained log ({@code KafkaJournalTool dump --retained}), as JSON. */
    static native byte[] readRetainedDump(byte[] dump);

    /** Built natively through {@link LogStoreStats}' constructor. */
    static native LogStoreStats stats(long handle);
}
