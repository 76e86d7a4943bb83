package io.durablejournal.flinkagents;

import io.durablejournal.flink.StoreMetrics;
import org.apache.flink.agents.plan.AgentPlan;
import org.apache.flink.agents.runtime.operator.ActionExecutionOperator;
import org.apache.flink.api.common.operators.MailboxExecutor;
import org.apache.flink.runtime.state.StateSnapshotContext;
import org.apache.flink.streaming.runtime.tasks.ProcessingTimeService;

/**
 * Flink Agents' own {@link ActionExecutionOperator}, unchanged except that no checkpoint is
 * taken while the failure of an action is pending in its mailbox ({@link ActionFailureGuard}),
 * that what its store replayed is counted in Flink accumulators ({@link ReplayCounts}) and, after
 * a restore, logged once (INFO, at the first completed checkpoint that has some), and that
 * its store reports {@link StoreMetrics} under the operator's metric group (put latency, bytes
 * appended, live entries).
 */
public class GuardedActionExecutionOperator<IN, OUT> extends ActionExecutionOperator<IN, OUT> {
    private static final long serialVersionUID = 1L;

    private final transient ActionFailureGuard guard;
    private final transient JournalActionStateStore store;
    private final transient PutTimingStore timedStore;
    private transient StoreMetrics metrics;

    GuardedActionExecutionOperator(AgentPlan agentPlan, boolean inputIsJava, ProcessingTimeService processingTimeService,
            MailboxExecutor mailboxExecutor, JournalActionStateStore store, ActionFailureGuard guard) {
        this(agentPlan, inputIsJava, processingTimeService, mailboxExecutor, new PutTimingStore(store), guard);
    }

    private GuardedActionExecutionOperator(AgentPlan agentPlan, boolean inputIsJava, ProcessingTimeService processingTimeService,
            MailboxExecutor mailboxExecutor, PutTimingStore timedStore, ActionFailureGuard guard) {
        super(agentPlan, inputIsJava, processingTimeService, guard.watch(mailboxExecutor), timedStore);
        this.guard = guard;
        this.store = timedStore.journal();
        this.timedStore = timedStore;
        // Flink Agents looks an entry up by the key's text first: the store needs the key itself
        // (the operator's current key) to place the text in the key's key group.
        store.keyedBy(this::currentKeyOrNull);
    }

    private Object currentKeyOrNull() {
        return getKeyedStateBackend() == null ? null : getCurrentKey();
    }

    @Override
    public void open() throws Exception {
        super.open();
        ReplayCounts replays = store.replays();
        getRuntimeContext().addAccumulator(DurableAgents.ACC_ACTIONS_REEMITTED, replays.actionsReemitted);
        getRuntimeContext().addAccumulator(DurableAgents.ACC_ACTIONS_RESUMED, replays.actionsResumed);
        metrics = StoreMetrics.register(getMetricGroup().addGroup(StoreMetrics.GROUP), store.journalStore());
        timedStore.reportTo(metrics);
    }

    @Override
    public void close() throws Exception {
        if (metrics != null) {
            metrics.storeClosing();
        }
        super.close();
    }

    @Override
    public void notifyCheckpointComplete(long checkpointId) throws Exception {
        super.notifyCheckpointComplete(checkpointId);
        store.checkpointCompleted();
    }

    @Override
    public void snapshotState(StateSnapshotContext context) throws Exception {
        guard.failIfAnActionFailed();
        super.snapshotState(context);
    }
}
