package io.durablejournal;

/** The Rust parser of ActionState JSON. */
final class NativeSerde {
    static {
        NativeLibrary.load();
    }

    private NativeSerde() {}

    /** Parses Flink Agents' or our JSON and returns it canonical (explicit status on every slot). */
    static native byte[] normalizeActionState(byte[] json);
}
