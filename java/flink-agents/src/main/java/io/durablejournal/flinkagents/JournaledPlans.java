package io.durablejournal.flinkagents;

import java.util.ArrayList;
import java.util.IdentityHashMap;
import java.util.LinkedHashMap;
import java.util.List;
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
 * resources and the configuration are the plan's own. Done on the task manager, in the operator
 * factory: Flink Agents writes a plan into the job graph as JSON, where only the class names of
 * its functions survive.
 */
final class JournaledPlans {
    private JournaledPlans() {}

    /** The plan with its Java and Python actions journaled natively. */
    static AgentPlan withNativeJournal(AgentPlan plan) {
        Map<Action, Action> rebuilt = new IdentityHashMap<>();
        Map<String, Action> actions = new LinkedHashMap<>();
        for (Map.Entry<String, Action> entry : plan.getActions().entrySet()) {
            actions.put(entry.getKey(), rebuilt.computeIfAbsent(entry.getValue(), JournaledPlans::journaled));
        }
        Map<String, List<Action>> actionsByEvent = new LinkedHashMap<>();
        for (Map.Entry<String, List<Action>> entry : plan.getActionsByEvent().entrySet()) {
            List<Action> triggered = new ArrayList<>();
            for (Action action : entry.getValue()) {
                Action same = actions.get(action.getName());
                triggered.add(same != null ? same : rebuilt.computeIfAbsent(action, JournaledPlans::journaled));
            }
            actionsByEvent.put(entry.getKey(), triggered);
        }
        return new AgentPlan(actions, actionsByEvent, plan.getResourceProviders(), plan.getConfig());
    }

    /** Whether the action runs on the native journal (its function is one this class puts in plans). */
    static boolean isJournaled(Action action) {
        Function exec = action.getExec();
        return exec instanceof JournaledJavaFunction || exec instanceof JournaledPythonFunction;
    }

    private static Action journaled(Action action) {
        Function exec = action.getExec();
        if (exec instanceof PythonFunction && !(exec instanceof JournaledPythonFunction)) {
            try {
                return new Action(action.getName(), new JournaledPythonFunction((PythonFunction) exec),
                        action.getListenEventTypes(), action.getConfig());
            } catch (Exception e) {
                throw new IllegalArgumentException("cannot journal action '" + action.getName() + "' natively: " + e.getMessage(), e);
            }
        }
        if (!(exec instanceof JavaFunction) || exec instanceof JournaledJavaFunction) {
            return action;
        }
        try {
            return new Action(action.getName(), new JournaledJavaFunction((JavaFunction) exec), action.getListenEventTypes(),
                    action.getConfig());
        } catch (Exception e) {
            throw new IllegalArgumentException("cannot journal action '" + action.getName() + "' natively: " + e.getMessage(), e);
        }
    }
}
