package io.durablejournal.identity;

import io.durablejournal.internal.Utf8;
import io.durablejournal.internal.NativeHandle;

/**
 * Deterministic allocators of one action execution, kept in the Rust core: emission ordinals and
 * per-target call ordinals. A fresh instance over the same execution hands out the same ids in the
 * same order, which is what lets a replay land on the journal it wrote.
 *
 * <p>Thread-safe (calls are serialized); {@link #close()} is idempotent and any call after it is
 * an {@link IllegalStateException}. An instance dropped without {@code close()} is freed once it
 * is garbage collected; close it anyway.
 */
public final class ExecutionIdentity implements AutoCloseable {
    private final String executionId;
    private final NativeHandle allocators;

    ExecutionIdentity(String executionId) {
        this.executionId = executionId;
        long handle = IdentityJni.executionCreate(Utf8.encode(executionId, "executionId"));
        this.allocators = new NativeHandle(this, "ExecutionIdentity", handle, IdentityJni::executionDestroy);
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
    public String emit(String existingId) {
        byte[] existing = Utf8.encodeOrNull(existingId, "existingId");
        return Utf8.decode(allocators.apply(h -> IdentityJni.executionEmit(h, existing)));
    }

    /** The id of the next generated call to {@code target} (one counter per target) in a session. */
    public String nextCallId(String target, String sessionId) {
        byte[] targetUtf8 = Utf8.encode(target, "target");
        byte[] session = Utf8.encode(sessionId, "sessionId");
        return Utf8.decode(allocators.apply(h -> IdentityJni.executionNextCallId(h, targetUtf8, session)));
    }

    @Override
    public void close() {
        allocators.close();
    }
}
