package io.durablejournal;

import io.durablejournal.internal.NativeLibrary;

/**
 * The native journal's entry points. Every method takes the handle of a live journal; the owner
 * ({@link DurableExecutionContext}, through its {@code NativeHandle}) checks for close and
 * serializes calls. {@code persister} is the
 * object whose {@code persistSnapshot(byte[])} receives each persisted state, or null.
 * Function ids cross as UTF-8 bytes.
 */
final class NativeJournal {
    static {
        NativeLibrary.load();
    }

    private NativeJournal() {}

    static native long create(byte[] actionStateJson);

    static native void destroy(long handle);

    static native int currentCallIndex(long handle);

    static native int size(long handle);

    static native Object[] currentCallResultFields(long handle);

    static native Object[] callResultFieldsAt(long handle, int index);

    /** {@code argsDigest} (null allowed) only goes into a divergence report. */
    static native Object[] matchNextOrClearSubsequentCallResult(long handle, byte[] functionId, byte[] argsDigest);

    /** {@code policy}: {@link DivergencePolicy#number()}. */
    static native void setDivergencePolicy(long handle, int policy);

    /** The divergence cut under WARN since the last call, as its JSON report, or null. */
    static native byte[] takeUnreportedDivergence(long handle);

    /** Per call of a batch, whether it runs; see {@code DurableExecutionContext.beginBatchCalls}. */
    static native boolean[] beginBatch(long handle, Object persister, byte[][] functionIds);

    static native void recordCallCompletion(long handle, Object persister, byte[] functionId, byte[] result, byte[] exception);

    static native void appendPendingCall(long handle, Object persister, byte[] functionId);

    static native void finalizeCurrentCall(long handle, Object persister, byte[] functionId, byte[] result, byte[] exception);

    static native void clearCallResultsFromCurrentIndexAndPersist(long handle, Object persister);

    static native void reservePendingBatch(long handle, Object persister, byte[][] functionIds);

    static native void finalizeCallAt(long handle, Object persister, int index, byte[] functionId, byte[] result, byte[] exception);

    static native void advanceCallIndexBy(long handle, int n);

    static native void clearCallResultsFromAndPersist(long handle, Object persister, int index);

    static native void markCompleted(long handle, Object persister);

    /**
     * Null: execute. Empty: reconcile. {@code [result, exception]}: the recorded outcome to replay.
     * {@code [byte[] diff]}: execute, after the journal cut a divergence under WARN (its report).
     */
    static native Object[] beginCall(long handle, Object persister, byte[] functionId, boolean reconcilable);

    static native void completeCall(long handle, Object persister, byte[] functionId, byte[] result, byte[] exception);

    static native byte[] snapshot(long handle);
}
