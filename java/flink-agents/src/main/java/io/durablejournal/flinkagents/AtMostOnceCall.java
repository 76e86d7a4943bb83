package io.durablejournal.flinkagents;

import io.durablejournal.CallSemantics;
import org.apache.flink.agents.api.context.DurableCallable;

/**
 * A Flink Agents durable call made {@link CallSemantics#AT_MOST_ONCE at most once} under the
 * adapter ({@link DurableAgents}): its PENDING record is stored before its body runs, and an action
 * re-run after a failover during the call gets {@link io.durablejournal.CallInterruptedException}
 * from {@code durableExecute} instead of running the body again (or the call's reconciler's
 * answer, when it has one). Flink Agents' own journal, which knows no semantics, runs it as any
 * call ({@link DeclaredSemanticsCall}).
 *
 * @param <T> the result type
 */
public final class AtMostOnceCall<T> extends DeclaredSemanticsCall<T> {
    private AtMostOnceCall(DurableCallable<T> call) {
        super(call);
    }

    /** {@code call}, at most once. */
    public static <T> AtMostOnceCall<T> of(DurableCallable<T> call) {
        return new AtMostOnceCall<>(call);
    }

    @Override
    public CallSemantics semantics() {
        return CallSemantics.AT_MOST_ONCE;
    }
}
