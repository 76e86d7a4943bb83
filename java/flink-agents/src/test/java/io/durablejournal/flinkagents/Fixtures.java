package io.durablejournal.flinkagents;

import io.durablejournal.flink.ActionStateStoreFactory;
import io.durablejournal.flinkagents.demo.AgentJob;
import io.durablejournal.flinkagents.demo.SupportRequest;
import java.nio.charset.StandardCharsets;
import java.nio.file.Paths;
import org.apache.flink.agents.api.Event;
import org.apache.flink.agents.api.InputEvent;
import org.apache.flink.agents.plan.AgentPlan;
import org.apache.flink.agents.plan.actions.Action;
import org.apache.flink.agents.runtime.actionstate.ActionState;
import org.apache.flink.agents.runtime.actionstate.ActionStateSerde;
import org.apache.flink.agents.runtime.actionstate.CallResult;
import org.apache.flink.agents.runtime.context.RunnerContextImpl;
import org.apache.flink.api.common.JobID;

/** Flink Agents objects for the store tests: the demo agent's actions, its events and states. */
final class Fixtures {
    private Fixtures() {}

    /** The job the stores of these tests belong to. */
    static final JobID JOB = new JobID(1, 2);

    /** The adapter's store of subtask {@code subtask}, with Flink's default 128 key groups. */
    static JournalActionStateStore store(ActionStateStoreFactory stores, int subtask, int parallelism, int attempt) {
        return new JournalActionStateStore(stores, subtask, parallelism, 128, attempt, JOB);
    }

    /** A fresh plan of the demo agent: new {@code Action} objects each time. */
    static AgentPlan plan() {
        try {
            return AgentJob.plan("no-run", Paths.get("side-effects.log"));
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
    }

    static Action draft(AgentPlan plan) {
        return plan.getActions().get("draft");
    }

    static Action resolve(AgentPlan plan) {
        return plan.getActions().get("resolve");
    }

    /** The input event of request {@code i}, with a new random id each time, as Flink Agents makes it. */
    static InputEvent input(int i) {
        return new InputEvent(SupportRequest.number(i));
    }

    /**
     * Flink Agents' runner context as its operator hands it to an action: the store asked for the
     * entry (on a miss a fresh state put and asked for again, as {@code processActionTaskForKey}
     * does) and Flink Agents' own journal over the state it served, whose persister must never be
     * reached once the adapter installs the native journal.
     */
    static RunnerContextImpl operatorContext(JournalActionStateStore store, String key, long seqNum, Action action,
            InputEvent event, AgentPlan plan) {
        ActionState state = store.get(key, seqNum, action, event);
        if (state == null) {
            store.put(key, seqNum, action, event, new ActionState(event));
            state = store.get(key, seqNum, action, event);
        }
        RunnerContextImpl context = new RunnerContextImpl(null, () -> { }, plan, null, "job");
        context.setDurableExecutionContext(new RunnerContextImpl.DurableExecutionContext(key, seqNum, action, event, state,
                (k, s, a, e, st) -> { throw new AssertionError("Flink Agents' persister must not be reached"); }));
        return context;
    }

    /** An ActionState on {@code event} with {@code calls} successful Java calls of {@code payload} each. */
    static ActionState stateWithCalls(Event event, int calls, String payload) {
        ActionState state = new ActionState(event);
        for (int c = 0; c < calls; c++) {
            state.addCallResult(new CallResult("call-" + c, "", ("\"" + payload + c + "\"").getBytes(StandardCharsets.UTF_8)));
        }
        return state;
    }

    /** What Flink Agents' Kafka store sends for a state: its whole JSON. */
    static int wholeStateBytes(ActionState state) {
        return ActionStateSerde.serialize(state).length;
    }
}
