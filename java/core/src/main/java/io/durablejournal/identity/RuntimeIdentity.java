package io.durablejournal.identity;

import io.durablejournal.internal.Utf8;

/**
 * Occurrence, execution and generated call ids (spec §3). Each one is SHA-256 over a domain tag
 * and length-prefixed components, computed in the Rust core. Negative ordinals and missing (empty)
 * components are {@link io.durablejournal.JournalException}s with code {@code INVALID_ARGUMENT};
 * null arguments are {@link NullPointerException}s.
 */
public final class RuntimeIdentity {
    private RuntimeIdentity() {}

    /** {@code occ:...} of an input event: its serialized business key and input sequence number. */
    public static String rootOccurrence(byte[] serializedBusinessKey, long inputSequence) {
        DurableIds.requireNonNull(serializedBusinessKey, "serializedBusinessKey");
        return Utf8.decode(IdentityJni.rootOccurrence(serializedBusinessKey, inputSequence));
    }

    /**
     * {@code idem:...}, the idempotency key of the n-th call (from 0) with durable id {@code callId}
     * in the action execution stored under {@code entry} (the canonical encoding of its store key;
     * docs/identity.md, "Idempotency keys"). Inside a call, {@link io.durablejournal.DurableCall}
     * has its key.
     */
    public static String callIdempotencyKey(byte[] entry, String callId, long occurrence) {
        DurableIds.requireNonNull(entry, "entry");
        return Utf8.decode(IdentityJni.callIdempotencyKey(entry, Utf8.encode(callId, "callId"), occurrence));
    }

    /** {@code exec:...} of one action triggered by one occurrence. */
    public static String actionExecution(String triggeringOccurrence, String actionName) {
        return Utf8.decode(IdentityJni.actionExecution(
                Utf8.encode(triggeringOccurrence, "triggeringOccurrence"), Utf8.encode(actionName, "actionName")));
    }

    /** {@code occ:...} of the n-th event (from 0) an execution emitted. */
    public static String emittedOccurrence(String producerExecution, long emissionOrdinal) {
        return Utf8.decode(IdentityJni.emittedOccurrence(
                Utf8.encode(producerExecution, "producerExecution"), emissionOrdinal));
    }

    /** {@code call:...}, the n-th generated call (from 0) in a namespace and session. */
    public static String generatedCallId(String namespace, String sessionId, long callOrdinal) {
        return Utf8.decode(IdentityJni.generatedCallId(
                Utf8.encode(namespace, "namespace"), Utf8.encode(sessionId, "sessionId"), callOrdinal));
    }

    /** The ordinal allocators of one execution; close it when the execution ends. */
    public static ExecutionIdentity forExecution(String executionId) {
        return new ExecutionIdentity(executionId);
    }
}
