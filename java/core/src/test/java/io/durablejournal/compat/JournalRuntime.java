package io.durablejournal.compat;

import io.durablejournal.ActionState;
import io.durablejournal.ActionStateSerde;
import io.durablejournal.CountingCall;
import io.durablejournal.DurableExecutionContext;
import io.durablejournal.RunnerContextImpl;

/**
 * One runtime running an action's durable calls over a journal it loads from ActionState JSON and
 * persists as ActionState JSON, each with its own classes and its own {@code ActionStateSerde}
 * (as Flink Agents' Kafka store does on every persist).
 */
interface JournalRuntime extends AutoCloseable {
    <T> T durableExecute(CountingCall<T> call) throws Exception;

    /** The last state handed to the persister (or the loaded one), serialized by this runtime. */
    byte[] persistedJson();

    @Override
    default void close() {}

    /** A runtime's constructor: over a journal in ActionState JSON, or a fresh one for null. */
    interface Factory {
        JournalRuntime open(byte[] stateJson);
    }

    /** What both runtimes keep the same way: the JSON their persister last wrote. */
    abstract class Persisting implements JournalRuntime {
        /** Set to the loaded state's JSON at open, then by the runtime's persister on each persist. */
        byte[] persisted;

        @Override
        public byte[] persistedJson() {
            return persisted;
        }
    }

    /** durable-journal: {@code new DurableExecutionContext(state, persister)} and its RunnerContextImpl. */
    final class Ours extends Persisting {
        private final DurableExecutionContext journal;
        private final RunnerContextImpl runner;

        Ours(byte[] stateJson) {
            ActionState state = stateJson == null ? new ActionState() : ActionStateSerde.deserialize(stateJson);
            persisted = ActionStateSerde.serialize(state);
            journal = new DurableExecutionContext(state, s -> persisted = ActionStateSerde.serialize(s));
            runner = new RunnerContextImpl(journal);
        }

        @Override
        public <T> T durableExecute(CountingCall<T> call) throws Exception {
            return runner.durableExecute(call);
        }

        @Override
        public void close() {
            journal.close();
        }
    }

    /**
     * Apache Flink Agents (0.3.1, or main): its own {@code RunnerContextImpl} with its {@code
     * DurableExecutionContext}, outside an operator (no metrics or resources, an empty plan; the
     * durable calls use none of them).
     */
    final class FlinkAgents extends Persisting {
        private static final org.apache.flink.agents.plan.AgentPlan EMPTY_PLAN = emptyPlan();

        private static org.apache.flink.agents.plan.AgentPlan emptyPlan() {
            try {
                return new org.apache.flink.agents.plan.AgentPlan(new org.apache.flink.agents.api.agents.Agent());
            } catch (Exception e) {
                throw new IllegalStateException("cannot plan an empty agent", e);
            }
        }

        private final org.apache.flink.agents.runtime.context.RunnerContextImpl runner;

        FlinkAgents(byte[] stateJson) {
            org.apache.flink.agents.runtime.actionstate.ActionState state = stateJson == null
                    ? new org.apache.flink.agents.runtime.actionstate.ActionState(null)
                    : org.apache.flink.agents.runtime.actionstate.ActionStateSerde.deserialize(stateJson);
            persisted = org.apache.flink.agents.runtime.actionstate.ActionStateSerde.serialize(state);
            // A plan: Flink Agents main's context reads its configuration (0.3.1 takes none).
            runner = new org.apache.flink.agents.runtime.context.RunnerContextImpl(null, () -> {}, EMPTY_PLAN, null, "compat-test");
            runner.setDurableExecutionContext(new org.apache.flink.agents.runtime.context.RunnerContextImpl.DurableExecutionContext(
                    "user-42", 1L, null, null, state,
                    (key, seq, action, event, s) -> persisted = org.apache.flink.agents.runtime.actionstate.ActionStateSerde.serialize(s)));
        }

        @Override
        public <T> T durableExecute(CountingCall<T> call) throws Exception {
            return runner.durableExecute(call);
        }
    }
}
