package io.durablejournal.flinkagents;

import java.util.List;
import org.apache.flink.agents.api.Event;
import org.apache.flink.agents.plan.actions.Action;
import org.apache.flink.agents.runtime.actionstate.ActionState;
import org.apache.flink.agents.runtime.actionstate.ActionStateStore;

/**
 * Flink Agents' store SPI over a {@link JournalActionStateStore}, every call forwarded: a store
 * that watches the operator's calls (times its puts, counts their bytes) overrides only what it
 * watches.
 */
abstract class ForwardingJournalStore implements ActionStateStore {
    final JournalActionStateStore journal;

    ForwardingJournalStore(JournalActionStateStore journal) {
        this.journal = journal;
    }

    @Override
    public void put(Object key, long seqNum, Action action, Event event, ActionState state) throws Exception {
        journal.put(key, seqNum, action, event, state);
    }

    @Override
    public ActionState get(Object key, long seqNum, Action action, Event event) throws Exception {
        return journal.get(key, seqNum, action, event);
    }

    @Override
    public void rebuildState(List<Object> recoveryMarkers) throws Exception {
        journal.rebuildState(recoveryMarkers);
    }

    @Override
    public void pruneState(Object key, long seqNum) {
        journal.pruneState(key, seqNum);
    }

    @Override
    public Object getRecoveryMarker() {
        return journal.getRecoveryMarker();
    }

    @Override
    public void close() throws Exception {
        journal.close();
    }

    @Override
    public String toString() {
        return journal.toString();
    }
}
