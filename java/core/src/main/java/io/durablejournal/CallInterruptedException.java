package io.durablejournal;

import com.fasterxml.jackson.databind.JsonNode;
import io.durablejournal.internal.CalledFromNative;

/**
 * An {@link CallSemantics#AT_MOST_ONCE at-most-once} call was started by an earlier run of its
 * action that ended before the call's outcome was recorded: the call may have taken effect, so
 * its body does not run again. Thrown into the action where the call was made (from {@code
 * durableExecute}, or as a {@code durableExecuteAll} call's failure); the journal records nothing
 * for it, so every later re-run is answered the same way. A call with a reconciler is never
 * interrupted: the reconciler decides. Its code is {@link Code#CALL_INTERRUPTED}.
 */
public final class CallInterruptedException extends JournalCallException {
    private static final long serialVersionUID = 1L;

    private final String callId;
    private final String idempotencyKey;

    /** Thrown by the native journal with its message and a report as JSON (rust/journal/semantics.rs). */
    @CalledFromNative
    CallInterruptedException(String message, byte[] reportJson) {
        this(message, NativeReports.read(reportJson, "interruption report"));
    }

    /**
     * For a call replayed from its recorded failure: the failure was this exception, rebuilt from its
     * message (spec §2.6); the fields the message does not carry are unknown.
     */
    public CallInterruptedException(String message) {
        super(Code.CALL_INTERRUPTED, message);
        callId = null;
        idempotencyKey = null;
    }

    private CallInterruptedException(String message, JsonNode report) {
        super(Code.CALL_INTERRUPTED, message, report);
        callId = NativeReports.text(report.get("functionId"));
        idempotencyKey = NativeReports.text(report.get("idempotencyKey"));
    }

    /** The interrupted call's durable id. */
    public String getCallId() {
        return callId;
    }

    /** The call's idempotency key (ask the external service about it), or null when the journal has no store entry. */
    public String getIdempotencyKey() {
        return idempotencyKey;
    }
}
