package io.durablejournal.flinkagents;

import io.durablejournal.CallSemantics;
import org.apache.flink.agents.api.context.DurableCallable;

/**
 * A Flink Agents durable call that stays {@link CallSemantics#AT_LEAST_ONCE at least once} under a
 * job whose default is at most once ({@link DurableAgents#connectToAgent(org.apache.flink.streaming.api.datastream.KeyedStream,
 * org.apache.flink.agents.plan.AgentPlan, io.durablejournal.flink.ActionStateStoreFactory, CallSemantics)}):
 * an action re-run after a failover during the call runs it again (under the same idempotency
 * key). Without a job default every call is at least once already.
 *
 * @param <T> the result type
 */
public final class AtLeastOnceCall<T> extends DeclaredSemanticsCall<T> {
    private AtLeastOnceCall(DurableCallable<T> call) {
        super(call);
    }

    /** {@code call}, at least once whatever the job's default. */
    public static <T> AtLeastOnceCall<T> of(DurableCallable<T> call) {
        return new AtLeastOnceCall<>(call);
    }

    @Override
    public CallSemantics semantics() {
        return CallSemantics.AT_LEAST_ONCE;
    }
}
