package io.durablejournal;

import io.durablejournal.internal.CalledFromNative;
import io.durablejournal.internal.Utf8;

/**
 * One slot of the native journal as it crosses the boundary: built by the native library ({@code
 * journal_slot} in rust/jni/journal.rs) with the id still in UTF-8, so a caller that reads only
 * the outcome (a replay) decodes nothing. Public only so that a store can hand a {@link
 * DurableExecutionContext#resuming(java.util.List, java.util.function.Supplier) resuming} context
 * the recorded hits the native library computed ({@link io.durablejournal.store.internal.ResumingEntry});
 * it has no public constructor.
 */
public final class JournalSlot {
    private static final CallResult.Status[] STATUSES = CallResult.Status.values();

    /** The call's id in UTF-8 (WTF-8 for an id holding a lone surrogate), or null. */
    final byte[] functionId;
    final CallResult.Status status;
    /** The recorded result (JSON), or null. */
    final byte[] result;
    /** The recorded failure (JSON), or null. */
    final byte[] exception;

    /** {@code status}: the ordinal of {@link CallResult.Status} ({@code SLOT_*} in rust/jni/journal.rs). */
    @CalledFromNative
    private JournalSlot(byte[] functionId, int status, byte[] result, byte[] exception) {
        this(functionId, STATUSES[status], result, exception);
    }

    private JournalSlot(byte[] functionId, CallResult.Status status, byte[] result, byte[] exception) {
        this.functionId = functionId;
        this.status = status;
        this.result = result;
        this.exception = exception;
    }

    /** A slot of a state the native library read, as it would cross (the payloads are shared, not copied). */
    static JournalSlot of(CallResult slot) {
        return new JournalSlot(Utf8.encodeOrNull(slot.getFunctionId(), "functionId"), slot.getStatus(), slot.recordedResult(),
                slot.recordedException());
    }

    /** The spec's 4-tuple {@code [String functionId, String status, byte[] result, byte[] exception]}. */
    Object[] toFields() {
        return new Object[] {functionId == null ? null : Utf8.decode(functionId), status.name(), result, exception};
    }

    /** The slot as a {@link CallResult} (with no args digest), for a reader that lists recorded hits. */
    public CallResult toCallResult() {
        return CallResult.read(functionId == null ? null : Utf8.decode(functionId), "", status, result, exception);
    }
}
