package io.durablejournal.flinkagents;

import io.durablejournal.flink.internal.StoreMetrics;
import org.apache.flink.agents.runtime.actionstate.ActionStateStore;
import org.apache.flink.api.common.operators.MailboxExecutor;
import org.apache.flink.streaming.api.operators.AbstractStreamOperator;

/**
 * What the adapter adds to Flink Agents' own operator, on every version: no checkpoint is taken
 * while the failure of an action is pending in its mailbox ({@link ActionFailureGuard}), what its
 * store replayed is counted in Flink accumulators ({@link ReplayCounts}), and its store reports
 * {@link StoreMetrics} under the operator's metric group (put latency, bytes appended, live
 * entries), and after a restore it is logged once (INFO, at the first completed checkpoint that
 * has something to report). Each version's operator subclass (its shim's) constructs Flink Agents' operator and
 * calls these at its constructor, {@code open}, {@code close}, {@code notifyCheckpointComplete}
 * and {@code snapshotState}.
 */
final class OperatorAdditions {
    private final ActionFailureGuard guard;
    private final JournalActionStateStore store;
    private final PutTimingStore timedStore;
    private StoreMetrics metrics;

    OperatorAdditions(JournalActionStateStore store, ActionFailureGuard guard) {
        this.guard = guard;
        this.store = store;
        this.timedStore = new PutTimingStore(store);
    }

    /** The mailbox executor to construct the operator with (the guard sees its mails). */
    MailboxExecutor watch(MailboxExecutor mailboxExecutor) {
        return guard.watch(mailboxExecutor);
    }

    /** The store to construct the operator with (its puts are timed). */
    ActionStateStore operatorStore() {
        return timedStore;
    }

    /**
     * Once the operator is constructed: Flink Agents looks an entry up by the key's text first, so
     * the store needs the key itself (the operator's current key, null before the keyed backend
     * exists) to place the text in the key's key group.
     */
    void constructed(AbstractStreamOperator<?> operator) {
        store.keyedBy(() -> operator.getKeyedStateBackend() == null ? null : operator.getCurrentKey());
    }

    /** After Flink Agents' {@code open}: the accumulators and the store's metrics. */
    void opened(AbstractStreamOperator<?> operator) {
        ReplayCounts replays = store.replays();
        operator.getRuntimeContext().addAccumulator(DurableAgents.ACC_ACTIONS_REEMITTED, replays.actionsReemitted);
        operator.getRuntimeContext().addAccumulator(DurableAgents.ACC_ACTIONS_RESUMED, replays.actionsResumed);
        metrics = StoreMetrics.register(operator.getMetricGroup().addGroup(StoreMetrics.GROUP), store.journalStore());
        timedStore.reportTo(metrics);
    }

    /** Before Flink Agents' {@code close}. */
    void closing() {
        if (metrics != null) {
            metrics.storeClosing();
        }
    }

    /** After Flink Agents' {@code notifyCheckpointComplete}: the restore's INFO line, once. */
    void checkpointCompleted() {
        store.checkpointCompleted();
    }

    /** Before Flink Agents' {@code snapshotState}: fails the checkpoint when an action failed since the last one. */
    void beforeSnapshot() throws Exception {
        guard.failIfAnActionFailed();
    }
}
