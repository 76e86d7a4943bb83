package io.durablejournal.flinkagents;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.durablejournal.flink.ActionStateStoreFactory;
import java.io.IOException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import org.apache.flink.agents.api.InputEvent;
import org.apache.flink.agents.api.context.RunnerContext;
import org.apache.flink.agents.api.trace.ExecutionReporter;
import org.apache.flink.agents.api.trace.ExecutionReporters;
import org.apache.flink.agents.plan.AgentPlan;
import org.apache.flink.agents.plan.actions.Action;
import org.apache.flink.agents.runtime.actionstate.ActionState;
import org.apache.flink.agents.runtime.context.RunnerContextImpl;
import org.junit.jupiter.api.Test;

/**
 * On Flink Agents main a journaled Java action's context is an {@link ExecutionReporter} too, so
 * the trace events its chat and tool calls report ({@link ExecutionReporters}, which drops them for
 * a context that is not one) reach Flink Agents' own context as they would without the adapter.
 */
class ReportingRunnerContext04Test {
    /** Flink Agents' context, recording what is reported to it. */
    private static final class RecordingContext extends RunnerContextImpl {
        final List<String> reports = new ArrayList<>();

        RecordingContext(AgentPlan plan) {
            super(null, () -> { }, plan, null, "job");
        }

        @Override
        public void reportExecutionStarted(String type, String name, Map<String, Object> metadata) {
            reports.add("started " + type + " " + name);
        }

        @Override
        public void reportExecutionSucceeded(String type, String name, Map<String, Object> metadata) {
            reports.add("succeeded " + type + " " + name);
        }

        @Override
        public void reportExecutionFailed(String type, String name, Map<String, Object> metadata, Throwable error,
                String problemCategory) {
            reports.add("failed " + type + " " + name + " " + error.getMessage() + " " + problemCategory);
        }
    }

    @Test
    void theTraceEventsOfAJournaledActionReachFlinkAgentsContext() throws Exception {
        AgentPlan plan = Fixtures.plan();
        Action draft = Fixtures.draft(plan);
        InputEvent event = Fixtures.input(1);
        try (JournalActionStateStore store = Fixtures.store(ActionStateStoreFactory.inMemory(), 0, 1, 0)) {
            store.put("user-1", 1, draft, event, new ActionState(event));
            RecordingContext flinkAgents = new RecordingContext(plan);
            flinkAgents.setDurableExecutionContext(new RunnerContextImpl.DurableExecutionContext("user-1", 1, draft, event,
                    store.get("user-1", 1, draft, event), (k, s, a, e, st) -> { }));
            NativeJournalContext journal = ServedStates.installJournal(flinkAgents);
            RunnerContext context = FlinkAgentsCompatibility.shim().runnerContext(flinkAgents, journal);

            assertTrue(context instanceof JournaledRunnerContext && context instanceof ExecutionReporter);
            ExecutionReporters.started(context, ExecutionReporter.EntityTypes.TOOL, "lookup");
            ExecutionReporters.succeeded(context, ExecutionReporter.EntityTypes.TOOL, "lookup");
            ExecutionReporters.failed(context, ExecutionReporter.EntityTypes.LLM, "chat", Map.of(), new IOException("quota"),
                    ExecutionReporter.ProblemCategories.MODEL_CALL_FAILED);
            assertEquals(Arrays.asList("started tool lookup", "succeeded tool lookup",
                    "failed llm chat quota model_call_failed"), flinkAgents.reports);
        }
    }
}
