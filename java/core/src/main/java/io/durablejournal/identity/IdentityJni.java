package io.durablejournal.identity;

import io.durablejournal.internal.NativeLibrary;

/**
 * JNI entry points of {@code rust/jni/identity.rs}. Strings cross as UTF-8 {@code byte[]} both
 * ways; errors arrive as {@link io.durablejournal.JournalException} with the core's code.
 */
final class IdentityJni {
    static {
        NativeLibrary.load();
    }

    private IdentityJni() {}

    static native byte[] argsDigest(byte[] callTreeJson);

    /** The explicit id (null: none) wins, else the id derived from what {@code call} describes. */
    static native byte[] callDurableId(byte[] durableId, PendingCall call);

    static native byte[] callIdWithDigest(byte[] functionId, byte[] argsDigest);

    static native byte[] argsDigestOfCallId(byte[] callId);

    static native byte[] functionIdOfCallId(byte[] callId);

    static native byte[] toolCallDurableId(byte[] toolCallId);

    static native byte[] rootOccurrence(byte[] serializedBusinessKey, long inputSequence);

    static native byte[] callIdempotencyKey(byte[] entry, byte[] callId, long occurrence);

    static native byte[] actionExecution(byte[] triggeringOccurrence, byte[] actionName);

    static native byte[] emittedOccurrence(byte[] producerExecution, long emissionOrdinal);

    static native byte[] generatedCallId(byte[] namespace, byte[] sessionId, long callOrdinal);

    static native long executionCreate(byte[] executionId);

    static native void executionDestroy(long handle);

    static native byte[] executionEmit(long handle, byte[] existingId);

    static native byte[] executionNextCallId(long handle, byte[] target, byte[] sessionId);
}
