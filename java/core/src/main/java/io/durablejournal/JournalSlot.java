package io.durablejournal;

import io.durablejournal.internal.CalledFromNative;
import io.durablejournal.internal.Utf8;

/**
 * One slot of the native journal as it crosses the boundary: built by the native library ({@code
 * journal_slot} in rust/jni/journal.rs) with the id still in UTF-8, so a caller that reads only
 * the outcome (a replay) decodes nothing.
 */
final class JournalSlot {
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
        this.functionId = functionId;
        this.status = STATUSES[status];
        this.result = result;
        this.exception = exception;
    }

    /** The spec's 4-tuple {@code [String functionId, String status, byte[] result, byte[] exception]}. */
    Object[] toFields() {
        return new Object[] {functionId == null ? null : Utf8.decode(functionId), status.name(), result, exception};
    }
}
