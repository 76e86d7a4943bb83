package io.durablejournal.flinkagents;

import io.durablejournal.flink.ActionStateStoreFactory;
import io.durablejournal.store.ActionStateStore;
import io.durablejournal.store.ActionStateStores;
import io.durablejournal.store.NativeActionStateStore;
import io.durablejournal.testing.ForwardingStore;

/** In-memory native stores that count the prunes reaching them (for one test, never serialized). */
final class CountingStores implements ActionStateStoreFactory {
    private static final long serialVersionUID = 1L;

    transient Counting opened;

    @Override
    public ActionStateStore open(int subtaskIndex, int parallelism) {
        opened = new Counting(ActionStateStores.inMemory());
        return opened;
    }

    static class Counting extends ForwardingStore {
        final NativeActionStateStore nativeStore;
        int prunes;

        Counting(NativeActionStateStore nativeStore) {
            super(nativeStore);
            this.nativeStore = nativeStore;
        }

        @Override
        public void pruneState(Object key, long seqNumUpTo) {
            prunes++;
            super.pruneState(key, seqNumUpTo);
        }
    }
}
