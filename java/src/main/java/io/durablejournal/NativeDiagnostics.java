package io.durablejournal;

/** Native entry points that let tests and the loader check the boundary itself. */
final class NativeDiagnostics {
    private NativeDiagnostics() {}

    /** Panics inside Rust with this UTF-8 message; must surface as a JournalException. */
    static native int panicWith(byte[] message);

    static native int abiVersion();
}
