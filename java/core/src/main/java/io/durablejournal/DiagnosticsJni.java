package io.durablejournal;

/** JNI entry points of rust/jni/diagnostics.rs, which let tests check the boundary itself. */
final class DiagnosticsJni {
    private DiagnosticsJni() {}

    /**
     * Panics inside Rust with this UTF-8 message; must surface as a JournalException. Only in the
     * library built for tests (cargo feature {@code test-exports}): the shipped library does not
     * export it, and a call is an {@link UnsatisfiedLinkError}.
     */
    static native int panicWith(byte[] message);

    /**
     * How many native objects (journals, stores, execution identities) Java owns right now, in
     * this copy of the library: what a leak check or a test of the Cleaner safety net counts.
     */
    static native long liveHandleCount();
}
