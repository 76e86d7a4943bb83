package io.durablejournal.flinkagents;

import org.apache.flink.agents.api.Event;
import org.apache.flink.agents.plan.PythonFunction;
import org.apache.flink.agents.runtime.context.RunnerContextImpl;
import org.apache.flink.agents.runtime.python.utils.PythonActionExecutor;

/** What the tests do differently on Flink Agents 0.3.1 (the tests' shim, src/test/flink-agents-0.3). */
final class VersionFixtures {
    /** The supported shape under test. */
    static final FlinkAgentsCompatibility.Shape SHAPE = FlinkAgentsCompatibility.V0_3_1;
    /** The operator class the adapter's factory creates on it. */
    @SuppressWarnings("rawtypes")
    static final Class<GuardedOperator03> OPERATOR_CLASS = GuardedOperator03.class;

    private VersionFixtures() {}

    /** What the operator does before an action runs: the action's name and key on Flink Agents' context. */
    static void switchActionContext(RunnerContextImpl context, String actionName, String key) {
        context.switchActionContext(actionName, null, key);
    }

    /** {@code PythonActionTask}'s call of a Python action (the key's hash, which 0.3.1 takes): the awaitable's name, or null. */
    static String executePythonFunction(PythonActionExecutor executor, PythonFunction function, Event event, int keyHash)
            throws Exception {
        return executor.executePythonFunction(function, event, keyHash);
    }
}
