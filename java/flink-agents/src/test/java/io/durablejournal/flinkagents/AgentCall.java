package io.durablejournal.flinkagents;

import java.util.concurrent.Callable;
import org.apache.flink.agents.api.context.DurableCallable;

/**
 * A durable call of the tests' Flink Agents agents, written as the core's {@link
 * io.durablejournal.DurableCallable#of} writes one (an id, the class of its result, a body and an
 * optional reconciler) and handed to Flink Agents through its own interface.
 */
final class AgentCall<T> implements DurableCallable<T> {
    private final io.durablejournal.DurableCallable<T> call;

    private AgentCall(io.durablejournal.DurableCallable<T> call) {
        this.call = call;
    }

    /** A call of {@code id} returning a String. */
    static AgentCall<String> of(String id, Callable<String> body) {
        return of(id, String.class, body);
    }

    static <T> AgentCall<T> of(String id, Class<T> resultClass, Callable<T> body) {
        return new AgentCall<>(io.durablejournal.DurableCallable.of(id, resultClass, body));
    }

    /** A call whose {@code reconciler} settles it when its body's outcome was never recorded. */
    static <T> AgentCall<T> reconcilable(String id, Class<T> resultClass, Callable<T> body, Callable<T> reconciler) {
        return new AgentCall<>(io.durablejournal.DurableCallable.of(id, resultClass, body, reconciler));
    }

    @Override
    public Callable<T> reconciler() {
        return call.reconciler();
    }

    @Override
    public Class<T> getResultClass() {
        return call.getResultClass();
    }

    @Override
    public String getId() {
        return call.getId();
    }

    @Override
    public T call() throws Exception {
        return call.call();
    }
}
