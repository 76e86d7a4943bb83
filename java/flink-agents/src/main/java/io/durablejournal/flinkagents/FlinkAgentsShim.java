package io.durablejournal.flinkagents;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.UnaryOperator;
import org.apache.flink.agents.api.context.RunnerContext;
import org.apache.flink.agents.plan.AgentPlan;
import org.apache.flink.agents.plan.Function;
import org.apache.flink.agents.plan.actions.Action;
import org.apache.flink.agents.runtime.context.RunnerContextImpl;
import org.apache.flink.agents.runtime.operator.ActionExecutionOperator;
import org.apache.flink.api.common.operators.MailboxExecutor;
import org.apache.flink.streaming.runtime.tasks.ProcessingTimeService;

/**
 * What the adapter does differently on each Flink Agents version it supports; everything else is
 * written once against what the versions share. One implementation per version lives in that
 * version's shim directory ({@code src/main/flink-agents-X.Y/java}), compiled against it, and
 * {@link FlinkAgentsCompatibility#shim()} loads the one whose shape the Flink Agents on the
 * classpath has: no other shim class is ever loaded, so none links against members its Flink
 * Agents lacks.
 */
interface FlinkAgentsShim {
    /**
     * The plan with every action replaced by {@code journaled.apply(action)} (called for each
     * action of the plan; it returns the same object for the same action), its resources,
     * configuration and routing otherwise the plan's own.
     */
    AgentPlan rebuild(AgentPlan plan, UnaryOperator<Action> journaled);

    /** The plan's actions by name, each replaced by {@code journaled.apply(action)}, in the plan's order. */
    static Map<String, Action> journaledActions(AgentPlan plan, UnaryOperator<Action> journaled) {
        Map<String, Action> actions = new LinkedHashMap<>();
        for (Map.Entry<String, Action> entry : plan.getActions().entrySet()) {
            actions.put(entry.getKey(), journaled.apply(entry.getValue()));
        }
        return actions;
    }

    /** The action with {@code function} in place of its own, its triggers and configuration unchanged. */
    Action withFunction(Action action, Function function) throws Exception;

    /**
     * Flink Agents' operator with the adapter's {@link OperatorAdditions}.
     *
     * @param pythonKeyIsPickled for Python input (not {@code inputIsJava}): whether its keys are
     *     pickled, where the version asks (apache/flink-agents#887)
     * @throws IllegalArgumentException when the version cannot run the operator so configured
     */
    <IN, OUT> ActionExecutionOperator<IN, OUT> operator(AgentPlan plan, boolean inputIsJava, boolean pythonKeyIsPickled,
            ProcessingTimeService processingTimeService, MailboxExecutor mailboxExecutor, OperatorAdditions additions);

    /** The class {@link #operator} returns. */
    @SuppressWarnings("rawtypes")
    Class<? extends ActionExecutionOperator> operatorClass();

    /**
     * The runner context a journaled Java action is called with: a {@link JournaledRunnerContext}
     * over Flink Agents' own, with whatever else the version's actions expect of their context.
     */
    RunnerContext runnerContext(RunnerContextImpl flinkAgents, NativeJournalContext journal);

    /** The plan's actions an event triggers, as the version's operator routes it (in its order). */
    java.util.function.Function<org.apache.flink.agents.api.Event, List<Action>> router(AgentPlan plan);

    /**
     * Whether the operator itself emits events of this type at an action's end, observing its
     * memory operations (they land in the action's recorded outputs beside what it sent).
     */
    boolean isMemoryObservation(String eventType);
}
