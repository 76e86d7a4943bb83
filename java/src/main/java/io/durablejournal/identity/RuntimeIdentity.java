package io.durablejournal.identity;

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
        return Text.decode(NativeIdentity.rootOccurrence(serializedBusinessKey, inputSequence));
    }

    /** {@code exec:...} of one action triggered by one occurrence. */
    public static String actionExecution(String triggeringOccurrence, String actionName) {
        return Text.decode(NativeIdentity.actionExecution(
                Text.utf8(triggeringOccurrence, "triggeringOccurrence"), Text.utf8(actionName, "actionName")));
    }

    /** {@code occ:...} of the n-th event (from 0) an execution emitted. */
    public static String emittedOccurrence(String producerExecution, long emissionOrdinal) {
        return Text.decode(NativeIdentity.emittedOccurrence(
                Text.utf8(producerExecution, "producerExecution"), emissionOrdinal));
    }

    /** {@code call:...}, the n-th generated call (from 0) in a namespace and session. */
    public static String generatedCallId(String namespace, String sessionId, long callOrdinal) {
        return Text.decode(NativeIdentity.generatedCallId(
                Text.utf8(namespace, "namespace"), Text.utf8(sessionId, "sessionId"), callOrdinal));
    }

    /** The ordinal allocators of one execution; close it when the execution ends. */
    public static ExecutionIdentity forExecution(String executionId) {
        return new ExecutionIdentity(executionId);
    }
}
