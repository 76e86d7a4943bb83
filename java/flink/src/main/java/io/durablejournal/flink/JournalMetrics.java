package io.durablejournal.flink;

import io.durablejournal.flink.internal.StoreMetrics;
import io.durablejournal.store.ActionStateStore;
import org.apache.flink.metrics.Counter;
import org.apache.flink.metrics.MetricGroup;

/**
 * The metrics of {@link DurableActionFunction} and {@link DurableAsyncActionFunction}, in the
 * subgroup {@value StoreMetrics#GROUP} of the operator's metric group, so they show up wherever the
 * job's metrics go (web UI, reporters): what the operator's durable calls and actions did
 * (counters), and its store's {@link StoreMetrics} (the put latency is the put of each completed
 * action's output and completion). Updated on the task thread only, from a {@link
 * DurableActionRunner.Tally}.
 */
final class JournalMetrics {
    /** Durable call bodies that ran (neither replayed nor reconciled). */
    static final String CALLS_EXECUTED = "callsExecuted";
    /** Durable calls answered from the journal without running. */
    static final String CALLS_REPLAYED = "callsReplayed";
    /** Calls an interrupted run had left PENDING whose reconciler ran instead of the call. */
    static final String CALLS_RECONCILED = "callsReconciled";
    /**
     * Re-run calls that differed from the journal's recorded call at their position, under {@link
     * io.durablejournal.DivergencePolicy#WARN}: the journal was cut there and they ran.
     */
    static final String CALLS_DIVERGED = "callsDiverged";
    /** Action bodies started (first runs and re-runs over a journal). */
    static final String ACTIONS_RUN = "actionsRun";
    /** Completed actions whose stored output was re-emitted without running them. */
    static final String ACTIONS_REEMITTED = "actionsReemitted";

    private final Counter callsExecuted;
    private final Counter callsReplayed;
    private final Counter callsReconciled;
    private final Counter callsDiverged;
    private final Counter actionsRun;
    private final Counter actionsReemitted;
    private final StoreMetrics store;

    private JournalMetrics(MetricGroup group, ActionStateStore store) {
        callsExecuted = group.counter(CALLS_EXECUTED);
        callsReplayed = group.counter(CALLS_REPLAYED);
        callsReconciled = group.counter(CALLS_RECONCILED);
        callsDiverged = group.counter(CALLS_DIVERGED);
        actionsRun = group.counter(ACTIONS_RUN);
        actionsReemitted = group.counter(ACTIONS_REEMITTED);
        this.store = StoreMetrics.register(group, store);
    }

    /** Registers the metrics under {@code operatorGroup}; {@code store} is null without a journal. */
    static JournalMetrics register(MetricGroup operatorGroup, ActionStateStore store) {
        return new JournalMetrics(operatorGroup.addGroup(StoreMetrics.GROUP), store);
    }

    void add(DurableActionRunner.Tally tally) {
        callsExecuted.inc(tally.callsExecuted);
        callsReplayed.inc(tally.callsReplayed);
        callsReconciled.inc(tally.callsReconciled);
        callsDiverged.inc(tally.callsDiverged);
        actionsRun.inc(tally.actionsRun);
        actionsReemitted.inc(tally.actionsReemitted);
        if (tally.putNanos >= 0) {
            store.putTook(tally.putNanos);
        }
    }

    /** See {@link StoreMetrics#storeClosing()}. */
    void storeClosing() {
        store.storeClosing();
    }
}
