package io.durablejournal.store;

import java.util.List;

/** The store contract on the in-memory store: it persists nothing, so a restore rebuilds on the store itself. */
class MemoryStoreContractTest extends ActionStateStoreContract {
    @Override
    protected ActionStateStore openNew() {
        return ActionStateStores.inMemory();
    }

    @Override
    protected ActionStateStore restore(ActionStateStore store, List<byte[]> markers) {
        store.rebuildState(markers);
        return store;
    }

    @Override
    protected boolean countsBytesAppended() {
        return false;
    }
}
