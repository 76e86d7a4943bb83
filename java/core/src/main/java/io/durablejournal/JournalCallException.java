package io.durablejournal;

import com.fasterxml.jackson.databind.JsonNode;

/**
 * A {@link JournalException} about one durable call of one store entry: the entry's address (key,
 * sequence number, action) and the call's position, as the native journal reports them. The
 * exceptions the journal decides for a call ({@link NonDeterministicReplayException}, {@link
 * CallInterruptedException}) share these; each adds what its decision is about.
 */
public abstract class JournalCallException extends JournalException {
    private static final long serialVersionUID = 1L;

    private final String key;
    private final Long sequenceNumber;
    private final String actionName;
    private final int position;

    /** The address the native journal's report carries ({@code key}, {@code seq}, {@code action}, {@code position}). */
    JournalCallException(Code code, String message, JsonNode report) {
        super(code, message, null);
        key = NativeReports.text(report.get("key"));
        sequenceNumber = NativeReports.sequenceNumber(report);
        actionName = NativeReports.text(report.get("action"));
        position = report.get("position").asInt();
    }

    /** No address known (an exception rebuilt from its message alone). */
    JournalCallException(Code code, String message) {
        super(code, message, null);
        key = null;
        sequenceNumber = null;
        actionName = null;
        position = -1;
    }

    /** The business key as the store names it ({@code str:user-1}, {@code long:42}, ...), or null. */
    public String getKey() {
        return key;
    }

    /** The entry's input sequence number, or null when the journal has no entry address. */
    public Long getSequenceNumber() {
        return sequenceNumber;
    }

    /** The entry's action name, or null when the journal has no entry address. */
    public String getActionName() {
        return actionName;
    }

    /** The call index (0-based) the exception is about; -1 when unknown. */
    public int getPosition() {
        return position;
    }
}
