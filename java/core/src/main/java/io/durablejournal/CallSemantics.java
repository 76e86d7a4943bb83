package io.durablejournal;

/**
 * What the journal does with a durable call that was interrupted: its process died after the call
 * started and before its outcome was recorded. Declared per call ({@link DurableCallable#semantics})
 * or for every call of a runner ({@link RunnerContextImpl#setDefaultCallSemantics}); the journal
 * decides (rust/journal/semantics.rs). See docs/exactly-once.md.
 */
public enum CallSemantics {
    /**
     * The default: the re-run runs the call again. Hand {@link DurableCall#idempotencyKey()} to a
     * service that deduplicates by it, and the service sees the call once.
     */
    AT_LEAST_ONCE(1),
    /**
     * A PENDING record is written, and acknowledged by the store, before the body runs (one more
     * durable write per call); a re-run that finds it without an outcome does not run the body
     * again but throws {@link CallInterruptedException} into the action, or runs the call's
     * reconciler when it has one.
     */
    AT_MOST_ONCE(2);

    private final int number;

    CallSemantics(int number) {
        this.number = number;
    }

    /** The number the native journal knows it by (call_semantics in tests/vectors/constants.json). */
    public int number() {
        return number;
    }

    /** The number of a possibly undeclared semantics: 0 for null. */
    static int numberOf(CallSemantics semantics) {
        return semantics == null ? 0 : semantics.number;
    }
}
