package io.durablejournal;

import io.durablejournal.internal.NativeLibrary;

/** JNI entry points of rust/jni/serde.rs: the Rust parser of ActionState JSON. */
final class SerdeJni {
    static {
        NativeLibrary.load();
    }

    private SerdeJni() {}

    /** Parses Flink Agents' or our JSON and returns it canonical (explicit status on every slot). */
    static byte[] normalizeActionState(byte[] json) {
        return normalizeCountingHits(json, new int[1]);
    }

    /**
     * {@link #normalizeActionState}, and {@code hitCount[0]} receives how many of the record's
     * leading slots replay as recorded (the core's replay rule, in
     * rust/model.rs).
     */
    static native byte[] normalizeCountingHits(byte[] json, int[] hitCount);

    /**
     * True iff {@code payload} is a JSON string whose body is well-formed UTF-8 with no quote,
     * backslash or control character, so its value is exactly that text. Read in place.
     */
    static native boolean isPlainJsonString(byte[] payload);
}
