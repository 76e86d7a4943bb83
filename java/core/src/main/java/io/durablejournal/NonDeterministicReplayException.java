package io.durablejournal;

import com.fasterxml.jackson.databind.JsonNode;
import io.durablejournal.internal.CalledFromNative;

/**
 * A re-run action made another durable call than the journal recorded at that position, under
 * {@link DivergencePolicy#FAIL}: the call did not run and the journal is unchanged. Carries the
 * diff: which entry (key, sequence number and action, when the journal was opened on a store
 * entry; null otherwise), the call index, and the recorded call's id, args digest and status
 * against the new call's id and digest. Its code is {@link Code#NON_DETERMINISTIC_REPLAY}.
 */
public final class NonDeterministicReplayException extends JournalCallException {
    private static final long serialVersionUID = 1L;

    private final String recordedCallId;
    private final String recordedArgsDigest;
    private final CallResult.Status recordedStatus;
    private final String newCallId;
    private final String newArgsDigest;

    /** Thrown by the native journal with its message and the diff as JSON (rust/journal/divergence.rs). */
    @CalledFromNative
    NonDeterministicReplayException(String message, byte[] diffJson) {
        this(message, NativeReports.read(diffJson, "divergence report"));
    }

    private NonDeterministicReplayException(String message, JsonNode diff) {
        super(Code.NON_DETERMINISTIC_REPLAY, message, diff);
        JsonNode recorded = diff.get("recorded");
        recordedCallId = NativeReports.text(recorded.get("functionId"));
        recordedArgsDigest = NativeReports.text(recorded.get("argsDigest"));
        recordedStatus = CallResult.Status.valueOf(recorded.get("status").asText());
        JsonNode newCall = diff.get("newCall");
        newCallId = NativeReports.text(newCall.get("functionId"));
        newArgsDigest = NativeReports.text(newCall.get("argsDigest"));
    }

    /** The recorded call's id (null for a slot Flink Agents wrote with a null id). */
    public String getRecordedCallId() {
        return recordedCallId;
    }

    /** The recorded slot's args digest ({@code ""} for Java callables, null when the slot had none). */
    public String getRecordedArgsDigest() {
        return recordedArgsDigest;
    }

    public CallResult.Status getRecordedStatus() {
        return recordedStatus;
    }

    /** The id of the call the re-run made. */
    public String getNewCallId() {
        return newCallId;
    }

    /** The new call's args digest when its caller passed one (Flink Agents' primitives), else null. */
    public String getNewArgsDigest() {
        return newArgsDigest;
    }
}
