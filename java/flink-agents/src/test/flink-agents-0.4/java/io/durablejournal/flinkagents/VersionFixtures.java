package io.durablejournal.flinkagents;

import org.apache.flink.agents.api.Event;
import org.apache.flink.agents.plan.PythonFunction;
import org.apache.flink.agents.runtime.context.RunnerContextImpl;
import org.apache.flink.agents.runtime.python.utils.PythonActionExecutor;

/** What the tests do differently on Flink Agents main at 8ad3a32b (the tests' shim, src/test/flink-agents-0.4). */
final class VersionFixtures {
    /** The supported shape under test. */
    static final FlinkAgentsCompatibility.Shape SHAPE = FlinkAgentsCompatibility.V0_4_MAIN_8AD3A32B;
    /** The operator class the adapter's factory creates on it. */
    @SuppressWarnings("rawtypes")
    static final Class<GuardedOperator04> OPERATOR_CLASS = GuardedOperator04.class;

    private VersionFixtures() {}

    /**
     * What the operator does before an action runs: the action's name and key on Flink Agents'
     * context (main's form, with no memory observation).
     */
    static void switchActionContext(RunnerContextImpl context, String actionName, String key) {
        context.switchActionContext(actionName, null, key, (String) null, false);
    }

    /** {@code PythonActionTask}'s call of a Python action (main no longer takes the key's hash): the awaitable's name, or null. */
    static String executePythonFunction(PythonActionExecutor executor, PythonFunction function, Event event, int keyHash)
            throws Exception {
        return executor.executePythonFunction(function, event);
    }
}
