package io.durablejournal.flinkagents;

import io.durablejournal.flink.internal.StoreMetrics;
import org.apache.flink.agents.api.Event;
import org.apache.flink.agents.plan.actions.Action;
import org.apache.flink.agents.runtime.actionstate.ActionState;

/**
 * The store Flink Agents' operator is handed: a {@link JournalActionStateStore} whose puts are
 * timed into the operator's {@link StoreMetrics} once {@link OperatorAdditions#opened}
 * has registered them. Flink Agents puts the whole ActionState once per durable call (and when an
 * action starts and completes), so this is the store latency every durable call pays. Calls come
 * from the subtask's mailbox thread.
 */
final class PutTimingStore extends ForwardingJournalStore {
    /** Null until the operator opens. */
    private StoreMetrics metrics;

    PutTimingStore(JournalActionStateStore store) {
        super(store);
    }

    JournalActionStateStore journal() {
        return journal;
    }

    void reportTo(StoreMetrics metrics) {
        this.metrics = metrics;
    }

    @Override
    public void put(Object key, long seqNum, Action action, Event event, ActionState state) throws Exception {
        long start = System.nanoTime();
        journal.put(key, seqNum, action, event, state);
        if (metrics != null) {
            metrics.putTook(System.nanoTime() - start);
        }
    }
}
