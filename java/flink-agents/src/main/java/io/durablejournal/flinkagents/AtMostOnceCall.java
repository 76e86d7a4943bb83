package io.durablejournal.flinkagents;

import io.durablejournal.CallSemantics;
import java.util.Objects;
import java.util.concurrent.Callable;
import org.apache.flink.agents.api.context.DurableCallable;

/**
 * A Flink Agents durable call made {@link CallSemantics#AT_MOST_ONCE at most once} under the
 * adapter ({@link DurableAgents}): its PENDING record is stored before its body runs, and an action
 * re-run after a failover during the call gets {@link io.durablejournal.CallInterruptedException}
 * from {@code durableExecute} instead of running the body again (or the call's reconciler's
 * answer, when it has one). It is a durable call of both APIs, Flink Agents' and the core's, so
 * the adapter reads its semantics; Flink Agents' own journal, which knows no semantics, runs it as
 * any call.
 *
 * @param <T> the result type
 */
public final class AtMostOnceCall<T> implements DurableCallable<T>, io.durablejournal.DurableCallable<T> {
    private final DurableCallable<T> call;

    private AtMostOnceCall(DurableCallable<T> call) {
        this.call = Objects.requireNonNull(call, "call");
    }

    /** {@code call}, at most once. */
    public static <T> AtMostOnceCall<T> of(DurableCallable<T> call) {
        return new AtMostOnceCall<>(call);
    }

    @Override
    public String getId() {
        return call.getId();
    }

    @Override
    public Class<T> getResultClass() {
        return call.getResultClass();
    }

    @Override
    public T call() throws Exception {
        return call.call();
    }

    @Override
    public Callable<T> reconciler() {
        return call.reconciler();
    }

    @Override
    public CallSemantics semantics() {
        return CallSemantics.AT_MOST_ONCE;
    }

    @Override
    public String toString() {
        return "AtMostOnceCall{" + call.getId() + "}";
    }
}
