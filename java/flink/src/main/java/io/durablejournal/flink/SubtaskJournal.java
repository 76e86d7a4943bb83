package io.durablejournal.flink;

import io.durablejournal.flink.internal.SubtaskStores;
import io.durablejournal.store.ActionStateStore;
import org.apache.flink.api.common.functions.RuntimeContext;
import org.apache.flink.runtime.state.FunctionInitializationContext;

/**
 * What both operators ({@link DurableActionFunction}, {@link DurableAsyncActionFunction}) keep of
 * a subtask's journal store across checkpoints: the store (null without a journal), its recovery
 * marker in operator state, the records to prune when a checkpoint completes, and the counters
 * whose metrics read the store. Each operator decides when a record becomes prunable; this class
 * does the rest the same way for both. Task thread only.
 */
final class SubtaskJournal<K> {
    private final RecoveryMarkerState recoveryMarkers;
    private final PruneSchedule<K> prunes;
    private ActionStateStore store;
    private DurableActionRunner.Counters counters;

    private SubtaskJournal(RecoveryMarkerState recoveryMarkers, ActionStateStore store, PruneSchedule<K> prunes) {
        this.recoveryMarkers = recoveryMarkers;
        this.store = store;
        this.prunes = prunes;
    }

    /**
     * Registers the recovery markers and opens the subtask's store ({@link
     * DurableActionRunner#openStore}: checked against the restored markers, or refused with
     * entries of an earlier run on a fresh start); no store when {@code storeFactory} is null.
     *
     * @param pruneEntryByEntry see {@link PruneSchedule}
     */
    static <K> SubtaskJournal<K> initialize(FunctionInitializationContext context, RuntimeContext runtime,
            ActionStateStoreFactory storeFactory, boolean pruneEntryByEntry) throws Exception {
        RecoveryMarkerState markers = RecoveryMarkerState.register(context.getOperatorStateStore(), storeFactory);
        ActionStateStore store = storeFactory == null
                ? null
                : DurableActionRunner.openStore(storeFactory, runtime, context.isRestored(), markers);
        return new SubtaskJournal<>(markers, store, new PruneSchedule<>(pruneEntryByEntry));
    }

    /** The accumulators and metrics of the operator, on {@code context} (in {@code open}). */
    DurableActionRunner.Counters openCounters(RuntimeContext context) {
        counters = new DurableActionRunner.Counters(context, store);
        return counters;
    }

    /** The subtask's store; null without a journal or once closed. */
    ActionStateStore store() {
        return store;
    }

    /** The records waiting for a checkpoint to complete before their entries are pruned. */
    PruneSchedule<K> prunes() {
        return prunes;
    }

    /** Puts the store's recovery marker in the checkpoint and ties the prunable records to it. */
    void snapshot(long checkpointId, int parallelism) throws Exception {
        recoveryMarkers.snapshot(store, parallelism);
        if (store != null) {
            prunes.snapshot(checkpointId);
        }
    }

    /** Prunes the entries the completed checkpoint no longer needs. */
    void checkpointCompleted(long checkpointId) {
        if (store != null) {
            prunes.checkpointCompleted(checkpointId, store);
        }
    }

    /** Closes the store (once); the metrics stop reading it first. */
    void close() {
        if (store == null) {
            return;
        }
        if (counters != null) {
            counters.storeClosing();
        }
        SubtaskStores.close(store);
        store = null;
    }
}
