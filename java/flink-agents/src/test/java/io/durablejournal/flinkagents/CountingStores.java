package io.durablejournal.flinkagents;

import io.durablejournal.ActionState;
import io.durablejournal.DurableExecutionContext;
import io.durablejournal.flink.ActionStateStoreFactory;
import io.durablejournal.store.ActionStateStore;
import io.durablejournal.store.ActionStateStores;
import io.durablejournal.store.EventIdentity;
import io.durablejournal.store.NativeActionStateStore;
import java.util.List;

/** In-memory native stores that count the prunes reaching them (for one test, never serialized). */
final class CountingStores implements ActionStateStoreFactory {
    private static final long serialVersionUID = 1L;

    transient Counting opened;

    @Override
    public ActionStateStore open(int subtaskIndex, int parallelism) {
        opened = new Counting(ActionStateStores.inMemory());
        return opened;
    }

    static class Counting implements ActionStateStore {
        final NativeActionStateStore nativeStore;
        int prunes;

        Counting(NativeActionStateStore nativeStore) {
            this.nativeStore = nativeStore;
        }

        @Override
        public void put(Object key, long seqNum, String actionName, EventIdentity event, ActionState state) {
            nativeStore.put(key, seqNum, actionName, event, state);
        }

        @Override
        public ActionState get(Object key, long seqNum, String actionName, EventIdentity event) {
            return nativeStore.get(key, seqNum, actionName, event);
        }

        @Override
        public DurableExecutionContext openContext(Object key, long seqNum, String actionName, EventIdentity event,
                ActionState initial) {
            return nativeStore.openContext(key, seqNum, actionName, event, initial);
        }

        @Override
        public void rebuildState(List<byte[]> recoveryMarkers) {
            nativeStore.rebuildState(recoveryMarkers);
        }

        @Override
        public void pruneState(Object key, long seqNumUpTo) {
            prunes++;
            nativeStore.pruneState(key, seqNumUpTo);
        }

        @Override
        public byte[] getRecoveryMarker() {
            return nativeStore.getRecoveryMarker();
        }

        @Override
        public void close() {
            nativeStore.close();
        }
    }
}
