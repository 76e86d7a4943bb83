package io.durablejournal.flinkagents;

import io.durablejournal.CallSemantics;
import java.util.Objects;
import java.util.concurrent.Callable;
import org.apache.flink.agents.api.context.DurableCallable;

/**
 * A Flink Agents durable call that declares its {@link CallSemantics}: a durable call of both APIs,
 * Flink Agents' and the core's, so the adapter ({@link DurableAgents}) hands the declared semantics
 * to the native journal, which decides with it over the job's default. Flink Agents' own journal,
 * which knows no semantics, runs it as any call. Everything else is the wrapped call's.
 *
 * @param <T> the result type
 */
abstract class DeclaredSemanticsCall<T> implements DurableCallable<T>, io.durablejournal.DurableCallable<T> {
    private final DurableCallable<T> call;

    DeclaredSemanticsCall(DurableCallable<T> call) {
        this.call = Objects.requireNonNull(call, "call");
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
    public abstract CallSemantics semantics();

    @Override
    public String toString() {
        return getClass().getSimpleName() + "{" + call.getId() + "}";
    }
}
