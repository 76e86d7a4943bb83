package io.durablejournal;

import io.durablejournal.internal.NativeLibrary;

/**
 * The native journal's entry points. Every method takes the handle of a live journal; the owner
 * ({@link DurableExecutionContext}, through its {@code NativeHandle}) checks for close and
 * serializes calls. {@code persister} is the
 * object whose {@code persistSnapshot(byte[])} receives each persisted state, or null.
 * Function ids cross as UTF-8 bytes. A primitive that takes a function id and an args digest
 * ({@code argsDigest} null: none) files the call under the id the native core joins of them
 * ({@link SplitIdPrimitives}); a caller that has the whole id passes it as the function id with a null
 * digest.
 */
final class JournalJni {
    static {
        NativeLibrary.load();
    }

    private JournalJni() {}

    static native long create(byte[] actionStateJson);

    static native void destroy(long handle);

    static native int currentCallIndex(long handle);

    static native int size(long handle);

    /** The slot at the call index, or null past the end; {@code split}: its id split ({@link JournalSlot#argsDigest}). */
    static native JournalSlot currentSlot(long handle, boolean split);

    /** Slot {@code index}, or null past the end; {@code split} as {@link #currentSlot}. */
    static native JournalSlot slotAt(long handle, int index, boolean split);

    /**
     * The hit as a {@link CallStep#REPLAY} step; a miss is null, or a {@link CallStep#RUN} step with
     * the divergence it cut under WARN. {@code digestInId}: the call's id is {@code functionId}
     * joined with {@code argsDigest} by the native core; else it is {@code functionId}, and {@code
     * argsDigest} (null allowed) only goes into a divergence report.
     */
    static native CallStep matchNextOrClearSubsequentCallResult(long handle, byte[] functionId, byte[] argsDigest,
            boolean digestInId);

    /** {@code policy}: {@link DivergencePolicy#number()}. */
    static native void setDivergencePolicy(long handle, int policy);

    /** The divergence cut under WARN since the last call, as its JSON report, or null. */
    static native byte[] takeUnreportedDivergence(long handle);

    /** Per call of a batch, whether it runs; see {@code RunnerCalls.decideBatch}. */
    static native boolean[] beginBatch(long handle, DurableExecutionContext persister, byte[][] functionIds);

    static native void recordCallCompletion(long handle, DurableExecutionContext persister, byte[] functionId, byte[] argsDigest,
            byte[] result, byte[] exception);

    static native void appendPendingCall(long handle, DurableExecutionContext persister, byte[] functionId, byte[] argsDigest);

    static native void finalizeCurrentCall(long handle, DurableExecutionContext persister, byte[] functionId, byte[] argsDigest,
            byte[] result, byte[] exception);

    static native void clearCallResultsFromCurrentIndexAndPersist(long handle, DurableExecutionContext persister);

    /** {@code argsDigests}: null, or one per call (an element null or empty: none). */
    static native void reservePendingBatch(long handle, DurableExecutionContext persister, byte[][] functionIds, byte[][] argsDigests);

    static native void finalizeCallAt(long handle, DurableExecutionContext persister, int index, byte[] functionId, byte[] argsDigest,
            byte[] result, byte[] exception);

    static native void advanceCallIndexBy(long handle, int n);

    static native void clearCallResultsFromAndPersist(long handle, DurableExecutionContext persister, int index);

    static native void markCompleted(long handle, DurableExecutionContext persister);

    /** Null: run the body (nothing was cut); else the {@link CallStep}. */
    static native CallStep beginCall(long handle, DurableExecutionContext persister, byte[] functionId, boolean reconcilable);

    /**
     * Records the outcome of the call begun; true when the next call without a reconciler just runs
     * (no slot at the index, no divergence to report), so its {@link #beginCall} can be skipped.
     */
    static native boolean completeCall(long handle, DurableExecutionContext persister, byte[] functionId, byte[] result, byte[] exception);

    static native byte[] snapshot(long handle);

    /**
     * {@link #beginCall} for a call with a declared {@link CallSemantics} number (0: none) under a
     * job default (0: none); throws {@link CallInterruptedException} for an interrupted
     * at-most-once call (rust/jni/journal/semantics.rs).
     */
    static native CallStep beginCallWithSemantics(long handle, DurableExecutionContext persister, byte[] functionId,
            byte[] argsDigest, boolean reconcilable, int declared, int jobDefault);

    /** {@link #beginBatch} with a semantics number per call: a {@code CallStep.RUN}, {@code REPLAY} or {@code INTERRUPTED} per call. */
    static native int[] beginBatchWithSemantics(long handle, DurableExecutionContext persister, byte[][] functionIds,
            int[] declared, int jobDefault);

    /** Throws the {@link CallInterruptedException} of the call at {@code index}. */
    static native void throwInterruption(long handle, int index, byte[] functionId);

    /** The idempotency key of the call {@code functionId} at absolute slot {@code index}. */
    static native String idempotencyKey(long handle, int index, byte[] functionId);

    /** {@code {callId, idempotencyKey}} (UTF-8) of the call {@code functionId} joined with {@code argsDigest} at slot {@code index}. */
    static native byte[][] callIdAndIdempotencyKey(long handle, int index, byte[] functionId, byte[] argsDigest);

    /** {@code DurableExecutionContext.patched}: the answer; the marker is recorded when the execution is new here. */
    static native boolean patched(long handle, DurableExecutionContext persister, byte[] changeId);
}
