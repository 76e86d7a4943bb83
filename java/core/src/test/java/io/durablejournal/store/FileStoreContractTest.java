package io.durablejournal.store;

import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.io.TempDir;

/** The store contract on the file store, in a temporary directory; a restore opens the directory again. */
class FileStoreContractTest extends ActionStateStoreContract {
    @TempDir
    Path dir;

    @Override
    protected ActionStateStore openNew() {
        return ActionStateStores.openFileStore(dir);
    }

    @Override
    protected ActionStateStore restore(ActionStateStore store, List<byte[]> markers) {
        store.close();
        ActionStateStore reopened = track(ActionStateStores.openFileStore(dir));
        reopened.rebuildState(markers);
        return reopened;
    }
}
