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
public final class CountingCall<T> implements DurableCallable<T>, org.apache.flink.agents.api.context.DurableCallable<T> {
    /** The process dying mid-call: an Error, so neither runtime records it as the call's failure. */
    public static final class Crash extends Error {
        private static final long serialVersionUID = 1L;

        Crash(String message) {
            super(message);
        }
    }

    public final String id;
    public final Class<T> type;
    private final Callable<T> body;
    private final Callable<T> reconcile;
    /** How often the body ran. */
    public final AtomicInteger calls = new AtomicInteger();
    /** How often the reconciler ran. */
    public final AtomicInteger reconciles = new AtomicInteger();
    public final AtomicBoolean crashing = new AtomicBoolean();

    /** @param reconcile null: the call has no reconciler */
    public CountingCall(String id, Class<T> type, Callable<T> body, Callable<T> reconcile) {
        this.id = id;
        this.type = type;
        this.body = body;
        this.reconcile = reconcile;
    }

    /** A call of {@code body}, without a reconciler. */
    public static <T> CountingCall<T> of(String id, Class<T> type, Callable<T> body) {
        return new CountingCall<>(id, type, body, null);
    }

    /** A call that returns {@code value}. */
    public static CountingCall<String> returning(String id, String value) {
        return of(id, String.class, () -> value);
    }

    @Override
    public String getId() {
        return id;
    }

    @Override
    public Class<T> getResultClass() {
        return type;
    }

    @Override
    public T call() throws Exception {
        calls.incrementAndGet();
        T value = body.call();
        if (crashing.get()) {
            throw new Crash("the job died while " + id + " ran");
        }
        return value;
    }

    @Override
    public Callable<T> reconciler() {
        if (reconcile == null) {
            return null;
        }
        return () -> {
            reconciles.incrementAndGet();
            return reconcile.call();
        };
    }
}
