package io.durablejournal.bench;

import io.durablejournal.CountingCall;
import org.apache.flink.agents.api.InputEvent;
import org.apache.flink.agents.runtime.actionstate.ActionState;
import org.apache.flink.agents.runtime.actionstate.ActionStateSerde;
import org.apache.flink.agents.runtime.context.ActionStatePersister;
import org.apache.flink.agents.runtime.context.RunnerContextImpl;
import org.apache.flink.agents.runtime.context.RunnerContextImpl.DurableExecutionContext;

/**
 * Apache Flink Agents 0.3.1's own durable execution, the baseline the benchmarks compare against:
 * its {@code RunnerContextImpl} with its {@code DurableExecutionContext}, driven outside an
 * operator (no metrics, plan or resources; durable calls use none of them) the way its operator
 * drives them ({@code DurableExecutionManager}).
 */
final class FlinkAgentsBaseline {
    private FlinkAgentsBaseline() {}

    /** Its RunnerContextImpl over {@code state}, handing every persisted state to {@code persister}. */
    static RunnerContextImpl runner(ActionState state, ActionStatePersister persister) {
        RunnerContextImpl runner = new RunnerContextImpl(null, () -> {}, null, null, "jmh");
        runner.setDurableExecutionContext(new DurableExecutionContext(BenchSupport.KEY, 1L, null, null, state, persister));
        return runner;
    }

    /** The ActionState its RunnerContextImpl records for the calls (their execution counts reset after). */
    static ActionState recordedState(CountingCall<String>[] calls) throws Exception {
        ActionState state = new ActionState(null);
        RunnerContextImpl runner = runner(state, (key, seq, action, event, s) -> {});
        for (CountingCall<String> call : calls) {
            runner.durableExecute(call);
        }
        BenchSupport.resetExecutions(calls);
        return state;
    }

    /**
     * Serializes the whole ActionState with its ActionStateSerde on every persist, as its Kafka
     * store does before sending the record, and counts the bytes (writes them nowhere).
     */
    static final class SerdePersister implements ActionStatePersister {
        long bytes;

        @Override
        public void persist(Object key, long sequenceNumber, org.apache.flink.agents.plan.actions.Action action,
                org.apache.flink.agents.api.Event event, ActionState state) {
            bytes += ActionStateSerde.serialize(state).length;
        }
    }

    /**
     * Record path of one fresh action, as its operator runs it: the initial put of {@code new
     * ActionState(event)}, the calls through its RunnerContextImpl (one persist each), then {@code
     * markCompleted} and the final put; every put serializes the whole state.
     */
    static final class Recorder {
        private final CountingCall<String>[] calls;
        private final InputEvent event;
        final SerdePersister persister = new SerdePersister();

        Recorder(CountingCall<String>[] calls) {
            this.calls = calls;
            this.event = new InputEvent("question");
        }

        Object runAction() throws Exception {
            ActionState state = new ActionState(event);
            persister.persist(BenchSupport.KEY, 1L, null, event, state);
            RunnerContextImpl runner = runner(state, persister);
            Object last = null;
            for (CountingCall<String> call : calls) {
                last = runner.durableExecute(call);
            }
            state.markCompleted();
            persister.persist(BenchSupport.KEY, 1L, null, event, state);
            return last;
        }
    }
}
