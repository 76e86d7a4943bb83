package io.durablejournal.flinkagents;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.ObjectMapper;
import io.durablejournal.flink.ActionStateStoreFactory;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import org.apache.flink.agents.api.Event;
import org.apache.flink.agents.api.InputEvent;
import org.apache.flink.agents.api.OutputEvent;
import org.apache.flink.agents.plan.AgentPlan;
import org.apache.flink.agents.plan.PythonFunction;
import org.apache.flink.agents.plan.actions.Action;
import org.apache.flink.agents.runtime.actionstate.ActionState;
import org.apache.flink.agents.runtime.actionstate.CallResult;
import org.apache.flink.agents.runtime.context.RunnerContextImpl;
import org.apache.flink.agents.runtime.python.context.PythonRunnerContextImpl;
import org.apache.flink.agents.runtime.python.utils.PythonActionExecutor;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import pemja.core.PythonInterpreter;
import pemja.core.PythonInterpreterConfig;

/**
 * {@link JournaledPythonFunction} on Flink Agents 0.3.1's own Python action path, in this JVM:
 * its {@code PythonActionExecutor} runs the Python agent of {@code src/test/python} in CPython
 * embedded through pemja, with the Python {@code FlinkRunnerContext} over a {@code
 * PythonRunnerContextImpl}, as the operator does for each action ({@code
 * PythonActionTask.invoke}, then {@code PythonGeneratorActionTask} for the coroutine's steps). Before the action runs, Flink Agents' own journal is installed on
 * the Java context, as the operator installs it, with a persister that fails the test if reached:
 * every bridge call of {@code flink_runner_context.py} must reach the native journal instead.
 */
class JournaledPythonFunctionTest {
    private static final String KEY = "user-7";
    private static final long SEQ = 3;

    private static PythonInterpreter interpreter;
    private static AgentPlan plan;

    @TempDir
    Path tmp;

    @BeforeAll
    static void startPython() throws Exception {
        PythonAgents.assumeEnvironment();
        plan = PythonAgents.plan("durable_calls_agent", "DurableCallsAgent");
        interpreter = new PythonInterpreter(PythonInterpreterConfig.newBuilder()
                .setPythonExec(PythonAgents.EXECUTABLE)
                .addPythonPaths(PythonAgents.pythonPath().toArray(new String[0]))
                .setExcType(PythonInterpreterConfig.ExecType.MULTI_THREAD)   // as Flink Agents' operator
                .build());
    }

    @AfterAll
    static void stopPython() {
        if (interpreter != null) {
            interpreter.close();
        }
    }

    /** What the operator does before an action runs: the store's state, Flink Agents' journal over it. */
    private static void prepare(JournalActionStateStore store, RunnerContextImpl context, Action action, Event event) {
        ActionState state = store.get(KEY, SEQ, action, event);
        if (state == null) {
            store.put(KEY, SEQ, action, event, new ActionState(event));
            state = store.get(KEY, SEQ, action, event);
        }
        VersionFixtures.switchActionContext(context, action.getName(), KEY);
        context.setDurableExecutionContext(new RunnerContextImpl.DurableExecutionContext(KEY, SEQ, action, event, state,
                (k, s, a, e, st) -> { throw new AssertionError("Flink Agents' own journal persisted a call"); }));
    }

    @Test
    void everyBridgeCallOfAPythonActionReachesTheNativeJournalAndItsCallsReplay() throws Exception {
        Path log = tmp.resolve("side-effects.log");
        String input = new ObjectMapper().writeValueAsString(Map.of("name", "delta", "log", log.toString(),
                "crash_marker", tmp.resolve("crashed").toString()));
        Action answer = plan.getActions().get("answer");
        JournaledPythonFunction function = new JournaledPythonFunction((PythonFunction) answer.getExec());

        try (JournalActionStateStore store = Fixtures.store(ActionStateStoreFactory.inMemory(), 0, 1, 0)) {
            PythonRunnerContextImpl context = new PythonRunnerContextImpl(null, () -> { }, plan, null, "job");
            PythonActionExecutor executor = new PythonActionExecutor(interpreter, plan, null, context, "job");
            executor.open();
            try {
                // The first run crashes inside its fourth call (after its side effect, before its completion).
                prepare(store, context, answer, new InputEvent(input));
                Exception crash = assertThrows(Exception.class,
                        () -> runToCompletion(executor, function, new InputEvent(input)));
                assertTrue(crash.getMessage().contains("pickle"), "the crash is the unpicklable result: " + crash);
                assertInstanceOf(NativeJournalContext.class, context.getDurableExecutionContext());
                // The attempt ends here, as at a failover: the crashed action's journal is let go,
                // and the store answers from what it holds.
                ((NativeJournalContext) context.getDurableExecutionContext()).release();
                List<CallResult> recorded = store.get(KEY, SEQ, answer, new InputEvent(input)).getCallResults();
                assertEquals(5, recorded.size());
                assertTrue(recorded.get(4).isPending(), "the crashed call is pending");

                // The same record after a failover: the action runs again over the same journal.
                prepare(store, context, answer, new InputEvent(input));
                runToCompletion(executor, function, new InputEvent(input));
                List<Event> sent = context.drainEvents(null);
                assertEquals(1, sent.size());
                Map<?, ?> answered = new ObjectMapper().readValue(
                        (String) OutputEvent.fromEvent(sent.get(0)).getOutput(), Map.class);
                assertEquals("profile of delta", answered.get("looked_up"));
                assertEquals(List.of("delta", List.of("a", "b")), answered.get("fetched"));
                assertTrue(answered.containsKey("forgotten") && answered.get("forgotten") == null, "None replays as None");
                assertEquals("QuotaExceeded: no quota left for delta", answered.get("failure"));
                assertEquals("reconciled delta", answered.get("submitted"));
                // The operator would complete the entry now; this test reads it from the store instead.
                ((NativeJournalContext) context.getDurableExecutionContext()).release();
            } finally {
                executor.close();
            }

            Map<String, Integer> runs = new TreeMap<>();
            for (String line : Files.readAllLines(log)) {
                if (!line.startsWith("answer ")) {
                    runs.merge(line, 1, Integer::sum);
                }
            }
            Map<String, Integer> once = new TreeMap<>(Map.of("look_up delta", 1, "fetch delta", 1, "forget delta", 1, "charge delta", 1,
                    "submit delta", 1, "reconcile delta", 1, "action delta", 2,
                    "journal " + NativeJournalContext.class.getName(), 2));
            assertEquals(once, runs, "no call ran twice");

            // Filed by the native journal under function id :: durable_journal's digest of the arguments.
            interpreter.set("log_path", log.toString());
            interpreter.exec("import durable_journal\n"
                    + "expected_digest = durable_journal.compute_args_digest((log_path, 'delta'), {})");
            String digest = (String) interpreter.get("expected_digest");
            List<String> ids = new ArrayList<>();
            for (CallResult call : store.get(KEY, SEQ, answer, new InputEvent(input)).getCallResults()) {
                ids.add(call.getFunctionId());
            }
            assertEquals(List.of("durable_calls_agent.look_up::" + digest, "durable_calls_agent.fetch::" + digest, "durable_calls_agent.forget::" + digest,
                    "durable_calls_agent.charge::" + digest, "durable_calls_agent.submit::"
                            + digestOf("(log_path, 'delta', crash_marker)", tmp.resolve("crashed"))), ids);
        }
    }

    @Test
    void aPythonContextWithoutFlinkAgentsJavaContextFailsTheActionBeforeItRuns() throws Exception {
        JournaledPythonFunction function = new JournaledPythonFunction(
                (PythonFunction) plan.getActions().get("answer").getExec());
        function.setInterpreter(interpreter);
        interpreter.exec("class UnknownContext:\n    pass\n"
                + "no_attribute = UnknownContext()\n"
                + "other_attribute = UnknownContext()\n"
                + "other_attribute._j_runner_context = 'not a Java object'\n");
        for (String name : List.of("no_attribute", "other_attribute")) {
            Object context = interpreter.get(name);
            IllegalStateException refused = assertThrows(IllegalStateException.class,
                    () -> function.call(new Object(), context));
            assertTrue(refused.getMessage().contains("durable_calls_agent.DurableCallsAgent.answer")
                    && refused.getMessage().contains("supported Flink Agents versions: "
                            + FlinkAgentsCompatibility.SUPPORTED_VERSIONS), refused.getMessage());
        }
    }

    /**
     * Runs the action as Flink Agents' operator does: {@code PythonActionTask} calls the function;
     * a coroutine returns an awaitable, which {@code PythonGeneratorActionTask} steps (each step
     * one mailbox turn in the operator) until it finishes, on the journal installed by the call.
     */
    private static void runToCompletion(PythonActionExecutor executor, PythonFunction function, Event event)
            throws Exception {
        String awaitable = VersionFixtures.executePythonFunction(executor, function, event, KEY.hashCode());
        assertTrue(awaitable != null, "the action is a coroutine");
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        while (!executor.callPythonAwaitable(awaitable)) {
            assertTrue(System.nanoTime() < deadline, "the action finished within 60 s");
        }
    }

    private static String digestOf(String argsTuple, Path crashMarker) {
        interpreter.set("crash_marker", crashMarker.toString());
        interpreter.exec("digest_of = durable_journal.compute_args_digest(" + argsTuple + ", {})");
        return (String) interpreter.get("digest_of");
    }
}
