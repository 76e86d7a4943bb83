package io.durablejournal;

import io.durablejournal.internal.NativeLibrary;

/** The Rust parser of ActionState JSON. */
final class NativeSerde {
    static {
        NativeLibrary.load();
    }

    private NativeSerde() {}

    /** Parses Flink Agents' or our JSON and returns it canonical (explicit status on every slot). */
    static native byte[] normalizeActionState(byte[] json);

    /**
     * True iff {@code payload} is a JSON string whose body is well-formed UTF-8 with no quote,
     * backslash or control character, so its value is exactly that text. Read in place.
     */
    static native boolean isPlainJsonString(byte[] payload);
}
