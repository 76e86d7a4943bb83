package io.durablejournal.flinkagents;

import org.apache.flink.agents.plan.AgentPlan;
import org.apache.flink.agents.runtime.operator.ActionExecutionOperator;
import org.apache.flink.api.common.operators.MailboxExecutor;
import org.apache.flink.runtime.state.StateSnapshotContext;
import org.apache.flink.streaming.runtime.tasks.ProcessingTimeService;

/**
 * Flink Agents' own {@link ActionExecutionOperator}, unchanged except that no checkpoint is
 * taken while the failure of an action is pending in its mailbox ({@link ActionFailureGuard}),
 * and that what its store replayed is counted in Flink accumulators ({@link ReplayCounts}).
 */
public class GuardedActionExecutionOperator<IN, OUT> extends ActionExecutionOperator<IN, OUT> {
    private static final long serialVersionUID = 1L;

    private final transient ActionFailureGuard guard;
    private final transient JournalActionStateStore store;

    GuardedActionExecutionOperator(AgentPlan agentPlan, boolean inputIsJava, ProcessingTimeService processingTimeService,
            MailboxExecutor mailboxExecutor, JournalActionStateStore store, ActionFailureGuard guard) {
        super(agentPlan, inputIsJava, processingTimeService, guard.watch(mailboxExecutor), store);
        this.guard = guard;
        this.store = store;
    }

    @Override
    public void open() throws Exception {
        super.open();
        ReplayCounts replays = store.replays();
        getRuntimeContext().addAccumulator(DurableAgents.ACC_ACTIONS_REEMITTED, replays.actionsReemitted);
        getRuntimeContext().addAccumulator(DurableAgents.ACC_ACTIONS_RESUMED, replays.actionsResumed);
    }

    @Override
    public void snapshotState(StateSnapshotContext context) throws Exception {
        guard.failIfAnActionFailed();
        super.snapshotState(context);
    }
}
