package io.durablejournal.flinkagents;

import java.util.ArrayList;
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
 * The adapter on Flink Agents 0.3.1: a plan routes events by its actions-by-event map, an action
 * listens to event types, the operator has no Python key mode, and a runner context is only a
 * {@link RunnerContext}. Loaded by {@link FlinkAgentsCompatibility#shim()} only where 0.3.1's
 * shape is on the classpath.
 */
final class FlinkAgents03 implements FlinkAgentsShim {
    @Override
    public AgentPlan rebuild(AgentPlan plan, UnaryOperator<Action> journaled) {
        Map<String, Action> actions = FlinkAgentsShim.journaledActions(plan, journaled);
        Map<String, List<Action>> actionsByEvent = new LinkedHashMap<>();
        for (Map.Entry<String, List<Action>> entry : plan.getActionsByEvent().entrySet()) {
            List<Action> triggered = new ArrayList<>();
            for (Action action : entry.getValue()) {
                Action same = actions.get(action.getName());
                triggered.add(same != null ? same : journaled.apply(action));
            }
            actionsByEvent.put(entry.getKey(), triggered);
        }
        return new AgentPlan(actions, actionsByEvent, plan.getResourceProviders(), plan.getConfig());
    }

    @Override
    public Action withFunction(Action action, Function function) throws Exception {
        return new Action(action.getName(), function, action.getListenEventTypes(), action.getConfig());
    }

    @Override
    public <IN, OUT> ActionExecutionOperator<IN, OUT> operator(AgentPlan plan, boolean inputIsJava, boolean pythonKeyIsPickled,
            ProcessingTimeService processingTimeService, MailboxExecutor mailboxExecutor, OperatorAdditions additions) {
        if (pythonKeyIsPickled) {
            throw new IllegalArgumentException("Flink Agents 0.3.1's operator has no pickled Python keys (pythonKeyIsPickled"
                    + " came with apache/flink-agents#887)");
        }
        return new GuardedOperator03<>(plan, inputIsJava, processingTimeService, mailboxExecutor, additions);
    }

    @Override
    @SuppressWarnings("rawtypes")
    public Class<? extends ActionExecutionOperator> operatorClass() {
        return GuardedOperator03.class;
    }

    @Override
    public RunnerContext runnerContext(RunnerContextImpl flinkAgents, NativeJournalContext journal) {
        return new JournaledRunnerContext(flinkAgents, journal);
    }

    /** 0.3.1 routes by event type alone ({@code AgentPlan.getActionsTriggeredBy}). */
    @Override
    public java.util.function.Function<org.apache.flink.agents.api.Event, List<Action>> router(AgentPlan plan) {
        return event -> {
            List<Action> triggered = plan.getActionsTriggeredBy(event.getType());
            return triggered == null ? new ArrayList<>() : new ArrayList<>(triggered);
        };
    }

    /** 0.3.1's operator emits no events of its own. */
    @Override
    public boolean isMemoryObservation(String eventType) {
        return false;
    }
}
