package io.durablejournal.flinkagents;

import org.apache.flink.agents.plan.AgentPlan;
import org.apache.flink.agents.runtime.actionstate.ActionStateStore;
import org.apache.flink.agents.runtime.operator.ActionExecutionOperator;
import org.apache.flink.api.common.operators.MailboxExecutor;
import org.apache.flink.runtime.state.StateSnapshotContext;
import org.apache.flink.streaming.runtime.tasks.ProcessingTimeService;

/**
 * Flink Agents' own {@link ActionExecutionOperator}, unchanged except that no checkpoint is
 * taken while the failure of an action is pending in its mailbox ({@link ActionFailureGuard}).
 */
public class GuardedActionExecutionOperator<IN, OUT> extends ActionExecutionOperator<IN, OUT> {
    private static final long serialVersionUID = 1L;

    private final transient ActionFailureGuard guard;

    GuardedActionExecutionOperator(AgentPlan agentPlan, boolean inputIsJava, ProcessingTimeService processingTimeService,
            MailboxExecutor mailboxExecutor, ActionStateStore store, ActionFailureGuard guard) {
        super(agentPlan, inputIsJava, processingTimeService, guard.watch(mailboxExecutor), store);
        this.guard = guard;
    }

    @Override
    public void snapshotState(StateSnapshotContext context) throws Exception {
        guard.failIfAnActionFailed();
        super.snapshotState(context);
    }
}
