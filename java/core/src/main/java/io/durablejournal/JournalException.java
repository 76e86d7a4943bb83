package io.durablejournal;

import io.durablejournal.internal.CalledFromNative;

/**
 * An error reported by the native journal, with a stable code shared with the
 * Rust core ({@code ErrorCode}) and the Python binding.
 */
public class JournalException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    /** Stable codes; the numbers match the Rust {@code ErrorCode} enum. */
    public enum Code {
        INVALID_ARGUMENT(1),
        SLOT_ALREADY_EXISTS(2),
        NO_MATCHING_PENDING_SLOT(3),
        INDEX_OUT_OF_RANGE(4),
        MALFORMED_JSON(5),
        PERSIST_FAILED(6),
        STORE_IO(7),
        STORE_CORRUPT(8),
        STORE_LOCKED(9),
        NON_CANONICAL_ARGUMENT(10),
        CLOSED(11),
        PANIC(12),
        ILLEGAL_STATE(13),
        PAYLOAD_UNREADABLE(14),
        /** A write over a store's size limit (per record or per entry): nothing was written. */
        SIZE_LIMIT_EXCEEDED(15),
        /** A re-run made another call than recorded; see {@link NonDeterministicReplayException}. */
        NON_DETERMINISTIC_REPLAY(16),
        /** An at-most-once call was interrupted by an earlier run; see {@link CallInterruptedException}. */
        CALL_INTERRUPTED(17),
        UNKNOWN(-1);

        private final int number;

        Code(int number) {
            this.number = number;
        }

        public int number() {
            return number;
        }

        static Code of(int number) {
            for (Code code : values()) {
                if (code.number == number) {
                    return code;
                }
            }
            return UNKNOWN;
        }
    }

    private final Code code;

    /** Called by the native library when it throws ({@code rust/jni/mod.rs}, {@code throw_journal_exception}). */
    @CalledFromNative
    JournalException(int code, String message) {
        this(Code.of(code), message, null);
    }

    public JournalException(Code code, String message, Throwable cause) {
        super(message, cause);
        this.code = code;
    }

    public Code getCode() {
        return code;
    }
}
