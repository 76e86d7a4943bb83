package io.durablejournal.flinkagents;

import org.apache.flink.agents.plan.AgentPlan;
import org.apache.flink.agents.runtime.operator.ActionExecutionOperator;
import org.apache.flink.api.common.operators.MailboxExecutor;
import org.apache.flink.runtime.state.StateSnapshotContext;
import org.apache.flink.streaming.runtime.tasks.ProcessingTimeService;

/**
 * Flink Agents 0.3.1's own {@link ActionExecutionOperator} (its five-parameter constructor),
 * unchanged but for the adapter's {@link OperatorAdditions}.
 * The overrides are the same in every version's shim: only the constructor differs, and one
 * subclass cannot serve two versions whose superclass constructors differ.
 */
public class GuardedOperator03<IN, OUT> extends ActionExecutionOperator<IN, OUT> {
    private static final long serialVersionUID = 1L;

    private final transient OperatorAdditions additions;

    GuardedOperator03(AgentPlan agentPlan, boolean inputIsJava, ProcessingTimeService processingTimeService,
            MailboxExecutor mailboxExecutor, OperatorAdditions additions) {
        super(agentPlan, inputIsJava, processingTimeService, additions.watch(mailboxExecutor), additions.operatorStore());
        this.additions = additions;
        additions.constructed(this);
    }

    @Override
    public void open() throws Exception {
        super.open();
        additions.opened(this);
    }

    @Override
    public void close() throws Exception {
        additions.closing();
        super.close();
    }

    @Override
    public void notifyCheckpointComplete(long checkpointId) throws Exception {
        super.notifyCheckpointComplete(checkpointId);
        additions.checkpointCompleted();
    }

    @Override
    public void snapshotState(StateSnapshotContext context) throws Exception {
        additions.beforeSnapshot();
        super.snapshotState(context);
    }
}
