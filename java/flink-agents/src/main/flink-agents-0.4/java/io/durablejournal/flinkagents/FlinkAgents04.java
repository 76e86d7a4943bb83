package io.durablejournal.flinkagents;

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
 * The adapter on Flink Agents main (0.4, at 8ad3a32b): a plan routes events by each action's
 * trigger conditions (event types or CEL conditions, apache/flink-agents#756) and has an agent
 * name, the operator takes {@code pythonKeyIsPickled} (#887), and a runner context is also an
 * {@code ExecutionReporter}, through which chat and tool actions report their trace events.
 * Loaded by {@link FlinkAgentsCompatibility#shim()} only where that shape is on the classpath.
 */
final class FlinkAgents04 implements FlinkAgentsShim {
    @Override
    public AgentPlan rebuild(AgentPlan plan, UnaryOperator<Action> journaled) {
        Map<String, Action> actions = FlinkAgentsShim.journaledActions(plan, journaled);
        return new AgentPlan(actions, plan.getResourceProviders(), plan.getConfig(), plan.getAgentName());
    }

    @Override
    public Action withFunction(Action action, Function function) throws Exception {
        return new Action(action.getName(), function, action.getTriggerConditions(), action.getConfig());
    }

    @Override
    public <IN, OUT> ActionExecutionOperator<IN, OUT> operator(AgentPlan plan, boolean inputIsJava, boolean pythonKeyIsPickled,
            ProcessingTimeService processingTimeService, MailboxExecutor mailboxExecutor, OperatorAdditions additions) {
        return new GuardedOperator04<>(plan, inputIsJava, pythonKeyIsPickled, processingTimeService, mailboxExecutor, additions);
    }

    @Override
    @SuppressWarnings("rawtypes")
    public Class<? extends ActionExecutionOperator> operatorClass() {
        return GuardedOperator04.class;
    }

    @Override
    public RunnerContext runnerContext(RunnerContextImpl flinkAgents, NativeJournalContext journal) {
        return new ReportingRunnerContext04(flinkAgents, journal);
    }

    /** Main routes by event type and by condition expressions: its operator's {@code ActionMatcher}. */
    @Override
    public java.util.function.Function<org.apache.flink.agents.api.Event, java.util.List<Action>> router(AgentPlan plan) {
        org.apache.flink.agents.runtime.condition.ActionMatcher matcher = new org.apache.flink.agents.runtime.condition.ActionMatcher(plan);
        return matcher::match;
    }

    /** Main's memory observation events ({@code MemoryEvent}: short-term, sensory and long-term reads and writes). */
    @Override
    public boolean isMemoryObservation(String eventType) {
        return org.apache.flink.agents.api.event.MemoryEvent.isMemoryType(eventType);
    }
}
