package io.durablejournal.compat;

import java.util.concurrent.Callable;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * One durable call that both runtimes accept (it is a durable-journal and a Flink Agents
 * {@code DurableCallable}), counting how often its body and its reconciler really ran. While
 * {@link #crashing} is set the body runs and then throws {@link Crash}, as if the job died before
 * the outcome was recorded.
 */
final class DualCall<T> implements io.durablejournal.DurableCallable<T>,
        org.apache.flink.agents.api.context.DurableCallable<T> {
    /** The process dying mid-call: an Error, so neither runtime records it as the call's failure. */
    static final class Crash extends Error {
        private static final long serialVersionUID = 1L;

        Crash(String message) {
            super(message);
        }
    }

    final String id;
    final Class<T> type;
    private final Callable<T> body;
    private final Callable<T> reconcile;
    final AtomicInteger calls = new AtomicInteger();
    final AtomicInteger reconciles = new AtomicInteger();
    final AtomicBoolean crashing = new AtomicBoolean();

    DualCall(String id, Class<T> type, Callable<T> body, Callable<T> reconcile) {
        this.id = id;
        this.type = type;
        this.body = body;
        this.reconcile = reconcile;
    }

    static <T> DualCall<T> of(String id, Class<T> type, Callable<T> body) {
        return new DualCall<>(id, type, body, null);
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
