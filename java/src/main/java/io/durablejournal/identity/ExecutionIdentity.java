package io.durablejournal.identity;

import io.durablejournal.Utf8;

/**
 * Deterministic allocators of one action execution, kept in the Rust core: emission ordinals and
 * per-target call ordinals. A fresh instance over the same execution hands out the same ids in the
 * same order, which is what lets a replay land on the journal it wrote.
 *
 * <p>Thread-safe; {@link #close()} is idempotent and any call after it is an {@link
 * IllegalStateException}.
 */
public final class ExecutionIdentity implements AutoCloseable {
    private final String executionId;
    private long handle;

    ExecutionIdentity(String executionId) {
        this.executionId = executionId;
        this.handle = NativeIdentity.executionCreate(Utf8.encode(executionId, "executionId"));
    }

    public String executionId() {
        return executionId;
    }

    /** The occurrence id of the next emitted event. */
    public String emit() {
        return emit(null);
    }

    /**
     * The occurrence id of the next emitted event. {@code existingId} is the id the event already
     * carries, if any: re-emitting an event is a {@link io.durablejournal.JournalException} with
     * code {@code ILLEGAL_STATE} and uses no ordinal.
     */
    public synchronized String emit(String existingId) {
        return Utf8.decode(NativeIdentity.executionEmit(live(), Utf8.encodeOrNull(existingId, "existingId")));
    }

    /** The id of the next generated call to {@code target} (one counter per target) in a session. */
    public synchronized String nextCallId(String target, String sessionId) {
        return Utf8.decode(NativeIdentity.executionNextCallId(
                live(), Utf8.encode(target, "target"), Utf8.encode(sessionId, "sessionId")));
    }

    @Override
    public synchronized void close() {
        long h = handle;
        handle = 0;
        if (h != 0) {
            NativeIdentity.executionDestroy(h);
        }
    }

    private long live() {
        if (handle == 0) {
            throw new IllegalStateException("ExecutionIdentity is closed");
        }
        return handle;
    }
}
