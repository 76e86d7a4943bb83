package io.durablejournal;

/**
 * A durable call returned a value that cannot be written as JSON, so its outcome cannot be
 * journaled. The call did run: this failure is recorded as its outcome (so a re-run replays this
 * exception instead of running the side effect again) and thrown. Code {@code INVALID_ARGUMENT}.
 */
public class ResultNotSerializableException extends JournalException {
    private static final long serialVersionUID = 1L;

    /** Public and message-only so that a replay rebuilds this class from the recorded failure. */
    public ResultNotSerializableException(String message) {
        this(message, null);
    }

    ResultNotSerializableException(String message, Throwable cause) {
        super(Code.INVALID_ARGUMENT, message, cause);
    }
}
