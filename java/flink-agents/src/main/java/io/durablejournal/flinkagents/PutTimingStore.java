package io.durablejournal.flinkagents;

import io.durablejournal.flink.StoreMetrics;
import java.util.List;
import org.apache.flink.agents.api.Event;
import org.apache.flink.agents.plan.actions.Action;
import org.apache.flink.agents.runtime.actionstate.ActionState;
import org.apache.flink.agents.runtime.actionstate.ActionStateStore;

/**
 * The store Flink Agents' operator is handed: a {@link JournalActionStateStore} whose puts are
 * timed into the operator's {@link StoreMetrics} once {@link GuardedActionExecutionOperator#open}
 * has registered them. Flink Agents puts the whole ActionState once per durable call (and when an
 * action starts and completes), so this is the store latency every durable call pays. Calls come
 * from the subtask's mailbox thread.
 */
final class PutTimingStore implements ActionStateStore {
    private final JournalActionStateStore store;
    /** Null until the operator opens. */
    private StoreMetrics metrics;

    PutTimingStore(JournalActionStateStore store) {
        this.store = store;
    }

    JournalActionStateStore journal() {
        return store;
    }

    void reportTo(StoreMetrics metrics) {
        this.metrics = metrics;
    }

    @Override
    public void put(Object key, long seqNum, Action action, Event event, ActionState state) throws Exception {
        long start = System.nanoTime();
        store.put(key, seqNum, action, event, state);
        if (metrics != null) {
            metrics.putTook(System.nanoTime() - start);
        }
    }

    @Override
    public ActionState get(Object key, long seqNum, Action action, Event event) throws Exception {
        return store.get(key, seqNum, action, event);
    }

    @Override
    public void rebuildState(List<Object> recoveryMarkers) throws Exception {
        store.rebuildState(recoveryMarkers);
    }

    @Override
    public void pruneState(Object key, long seqNum) {
        store.pruneState(key, seqNum);
    }

    @Override
    public Object getRecoveryMarker() {
        return store.getRecoveryMarker();
    }

    @Override
    public void close() throws Exception {
        store.close();
    }

    @Override
    public String toString() {
        return store.toString();
    }
}
