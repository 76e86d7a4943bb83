package io.durablejournal;

import io.durablejournal.internal.CalledFromNative;

/**
 * How a durable call proceeds, as the journal decided it ({@code Journal::begin_call}): run its
 * body, run its reconciler over the PENDING slot an interrupted run left, or replay its recorded
 * outcome. Built by the native library ({@code call_step} in rust/jni/journal.rs), which answers
 * null for the common "run" without a divergence report ({@link #RUN_BODY}).
 */
final class CallStep {
    /** Codes of {@link #kind}, shared with {@code STEP_*} in rust/jni/journal.rs (call_step_kinds in tests/vectors/constants.json). */
    static final int RUN = 0;
    static final int RECONCILE = 1;
    static final int REPLAY = 2;
    /** Of a batch call only ({@code beginBatchWithSemantics}): an at-most-once call left PENDING. */
    static final int INTERRUPTED = 3;

    /** Run the call's body; nothing was cut. */
    static final CallStep RUN_BODY = new CallStep(RUN, null, null, null);

    final int kind;
    /** For {@link #REPLAY}: the recorded result, or null. */
    final byte[] result;
    /** For {@link #REPLAY}: the recorded failure, or null for a result. */
    final byte[] exception;
    /**
     * For {@link #RUN}: the report (JSON) of the divergence the journal cut at this call under
     * {@link DivergencePolicy#WARN}, or null.
     */
    final byte[] divergence;

    @CalledFromNative
    CallStep(int kind, byte[] result, byte[] exception, byte[] divergence) {
        this.kind = kind;
        this.result = result;
        this.exception = exception;
        this.divergence = divergence;
    }

    static CallStep replay(byte[] result, byte[] exception) {
        return new CallStep(REPLAY, result, exception, null);
    }
}
