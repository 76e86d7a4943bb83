package io.durablejournal.flinkagents;

import java.util.concurrent.Callable;
import org.apache.flink.agents.api.context.DurableCallable;

/**
 * Flink Agents' {@code DurableCallable} as the core's: the same id (the slot a journal matches),
 * result class, body and reconciler; a callable that is the core's too ({@link AtMostOnceCall},
 * {@link AtLeastOnceCall}) declares its semantics. For the journaled runner context and a replay's.
 */
public final class CoreCallables {
    private CoreCallables() {}

    /** {@code callable} as the core's durable call. */
    public static <T> io.durablejournal.DurableCallable<T> of(DurableCallable<T> callable) {
        return new Adapter<>(java.util.Objects.requireNonNull(callable, "callable"));
    }

    /** The user's callable {@code call} adapts ({@link #of}), or {@code call} itself: whose class loader is the user's. */
    public static Object user(io.durablejournal.DurableCallable<?> call) {
        return call instanceof Adapter ? ((Adapter<?>) call).callable : call;
    }

    private static final class Adapter<T> implements io.durablejournal.DurableCallable<T> {
        private final DurableCallable<T> callable;

        Adapter(DurableCallable<T> callable) {
            this.callable = callable;
        }

        @Override
        public String getId() {
            return callable.getId();
        }

        @Override
        public Class<T> getResultClass() {
            return callable.getResultClass();
        }

        @Override
        public T call() throws Exception {
            return callable.call();
        }

        @Override
        public Callable<T> reconciler() {
            return callable.reconciler();
        }

        @Override
        public io.durablejournal.CallSemantics semantics() {
            return callable instanceof io.durablejournal.DurableCallable
                    ? ((io.durablejournal.DurableCallable<?>) callable).semantics() : null;
        }
    }
}
