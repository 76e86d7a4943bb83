package io.durablejournal;

import java.util.concurrent.Callable;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The durable call of the core's tests and benchmarks: it returns or throws as its body says and
 * counts how often its body and its reconciler really ran. It is a durable call of both runtimes
 * (durable-journal's and Flink Agents' {@code DurableCallable}), so a comparison runs the very
 * same calls on each. While {@link #crashing} is set the body runs and then throws {@link Crash},
 * as if the job died before the outcome was recorded. ({@link DurableCallable#of} is the one a
 * user writes; this one is for counting.)
 */
public final class CountingCall<T> extends LambdaDurableCallable<T>
        implements org.apache.flink.agents.api.context.DurableCallable<T> {
    /** The process dying mid-call: an Error, so neither runtime records it as the call's failure. */
    public static final class Crash extends Error {
        private static final long serialVersionUID = 1L;

        Crash(String message) {
            super(message);
        }
    }

    public final String id;
    public final Class<T> type;
    /** How often the body ran. */
    public final AtomicInteger calls;
    /** How often the reconciler ran. */
    public final AtomicInteger reconciles;
    public final AtomicBoolean crashing;

    /** @param reconcile null: the call has no reconciler */
    public CountingCall(String id, Class<T> type, Callable<T> body, Callable<T> reconcile) {
        this(id, type, body, reconcile, new AtomicInteger(), new AtomicInteger(), new AtomicBoolean());
    }

    /** A {@link DurableCallable#of} call whose body and reconciler count their runs. */
    private CountingCall(String id, Class<T> type, Callable<T> body, Callable<T> reconcile, AtomicInteger calls,
            AtomicInteger reconciles, AtomicBoolean crashing) {
        super(id, type, () -> {
            calls.incrementAndGet();
            T value = body.call();
            if (crashing.get()) {
                throw new Crash("the job died while " + id + " ran");
            }
            return value;
        }, reconcile == null ? null : () -> {
            reconciles.incrementAndGet();
            return reconcile.call();
        });
        this.id = id;
        this.type = type;
        this.calls = calls;
        this.reconciles = reconciles;
        this.crashing = crashing;
    }

    /** A call of {@code body}, without a reconciler. */
    public static <T> CountingCall<T> of(String id, Class<T> type, Callable<T> body) {
        return new CountingCall<>(id, type, body, null);
    }

    /** A call that returns {@code value}. */
    public static CountingCall<String> returning(String id, String value) {
        return of(id, String.class, () -> value);
    }
}
