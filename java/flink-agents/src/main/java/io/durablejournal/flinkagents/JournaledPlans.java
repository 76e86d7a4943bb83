package io.durablejournal.flinkagents;

import java.util.IdentityHashMap;
import java.util.Map;
import org.apache.flink.agents.plan.AgentPlan;
import org.apache.flink.agents.plan.Function;
import org.apache.flink.agents.plan.JavaFunction;
import org.apache.flink.agents.plan.PythonFunction;
import org.apache.flink.agents.plan.actions.Action;

/**
 * Rebuilds an agent plan so that its actions run on the native journal: every action whose
 * function is a {@link JavaFunction} (the agent's {@code @Action} methods and Flink Agents'
 * built-in chat and tool actions) gets a {@link JournaledJavaFunction} over the same method, and
 * every {@link PythonFunction} a {@link JournaledPythonFunction} over the same module and name; the
 * resources, the configuration and the routing are the plan's own (how a plan and an action are
 * rebuilt differs by Flink Agents version: {@link FlinkAgentsShim}). Done on the task manager, in
 * the operator factory: Flink Agents writes a plan into the job graph as JSON, where only the
 * class names of its functions survive.
 */
final class JournaledPlans {
    private JournaledPlans() {}

    /** The plan with its Java and Python actions journaled natively. */
    static AgentPlan withNativeJournal(AgentPlan plan) {
        FlinkAgentsShim shim = FlinkAgentsCompatibility.shim();
        Map<Action, Action> rebuilt = new IdentityHashMap<>();
        return shim.rebuild(plan, action -> rebuilt.computeIfAbsent(action, original -> journaled(shim, original)));
    }

    /** Whether the action runs on the native journal (its function is one this class puts in plans). */
    static boolean isJournaled(Action action) {
        Function exec = action.getExec();
        return exec instanceof JournaledJavaFunction || exec instanceof JournaledPythonFunction;
    }

    private static Action journaled(FlinkAgentsShim shim, Action action) {
        Function exec = action.getExec();
        if (exec instanceof PythonFunction && !(exec instanceof JournaledPythonFunction)) {
            try {
                return shim.withFunction(action, new JournaledPythonFunction((PythonFunction) exec));
            } catch (Exception e) {
                throw new IllegalArgumentException("cannot journal action '" + action.getName() + "' natively: " + e.getMessage(), e);
            }
        }
        if (!(exec instanceof JavaFunction) || exec instanceof JournaledJavaFunction) {
            return action;
        }
        try {
            return shim.withFunction(action, new JournaledJavaFunction((JavaFunction) exec));
        } catch (Exception e) {
            throw new IllegalArgumentException("cannot journal action '" + action.getName() + "' natively: " + e.getMessage(), e);
        }
    }
}
