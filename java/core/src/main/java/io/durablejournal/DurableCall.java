package io.durablejournal;

import java.util.Objects;
import java.util.concurrent.Callable;

/**
 * The durable call whose body (or reconciler) is running on this thread: {@link #current()}
 * inside a {@link DurableCallable#call()}, for {@code durableExecute}, {@code durableExecuteAsync}
 * (on the executor's thread) and each call of {@code durableExecuteAll}.
 *
 * <p>Its {@link #idempotencyKey()} is the same on every run of the call, in every process, before
 * and after a restore, and differs between calls: it is derived in the native core from the
 * call's store entry (business key, sequence number, action, triggering event), its id and its
 * occurrence among the action's calls with that id (docs/identity.md, "Idempotency keys"). A call
 * whose process died while it ran runs again (unless it is {@link CallSemantics#AT_MOST_ONCE});
 * hand the key to a service that deduplicates requests by such a key and the service sees it
 * once.
 */
public final class DurableCall {
    private static final ThreadLocal<DurableCall> CURRENT = new ThreadLocal<>();

    private final DurableExecutionContext context;
    private final String callId;
    /** The call's slot, or -1: the context's call index while the call runs. */
    private final int position;
    private volatile String idempotencyKey;

    DurableCall(DurableExecutionContext context, String callId, int position) {
        this.context = context;
        this.callId = callId;
        this.position = position;
    }

    /**
     * The durable call running on this thread.
     *
     * @throws IllegalStateException outside a durable call's body or reconciler, or when its
     *     runner has no journal
     */
    public static DurableCall current() {
        DurableCall call = CURRENT.get();
        if (call == null) {
            throw new IllegalStateException("no durable call runs on this thread: DurableCall.current() answers inside "
                    + "the body or the reconciler of a durable call made through a journal");
        }
        return call;
    }

    /** The call's durable id ({@link DurableCallable#getId()}). */
    public String callId() {
        return callId;
    }

    /**
     * {@code idem:} and 32 hex digits, computed by the native core on first use (one crossing).
     *
     * @throws JournalException {@code ILLEGAL_STATE} when the journal belongs to no store entry (a
     *     {@link DurableExecutionContext} made over an ActionState rather than opened by a store)
     */
    public String idempotencyKey() {
        String key = idempotencyKey;
        if (key == null) {
            int slot = position >= 0 ? position : context.getCurrentCallIndex();
            key = context.idempotencyKeyAt(slot, callId);
            idempotencyKey = key;
        }
        return key;
    }

    @Override
    public String toString() {
        return "DurableCall{" + callId + "}";
    }

    /** Runs {@code body} with {@code call} as the current call of this thread. */
    static <T> T run(DurableCall call, Callable<T> body) throws Exception {
        Objects.requireNonNull(call, "call");
        DurableCall outer = CURRENT.get();
        CURRENT.set(call);
        try {
            return body.call();
        } finally {
            if (outer == null) {
                CURRENT.remove();
            } else {
                CURRENT.set(outer);
            }
        }
    }
}
