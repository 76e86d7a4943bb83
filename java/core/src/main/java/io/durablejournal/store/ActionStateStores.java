package io.durablejournal.store;

import java.nio.file.Path;

/** The native {@link ActionStateStore} implementations. */
public final class ActionStateStores {
    private ActionStateStores() {}

    /**
     * A store that keeps everything in memory: for tests and for jobs that opt out of
     * durability. It follows the file store's rules and forgets everything when closed.
     */
    public static NativeActionStateStore inMemory() {
        return NativeActionStateStore.inMemory();
    }

    /**
     * Opens (or creates) the embedded file store in {@code dir}, which must exist and be
     * writable, with an fsync per acknowledged write. One process and one store instance at a
     * time: a second open of the same directory fails with a {@code STORE_LOCKED}
     * JournalException. A record cut short by a crash is dropped on open; everything
     * acknowledged before it is there.
     */
    public static NativeActionStateStore openFileStore(Path dir) {
        return NativeActionStateStore.openFile(dir, FileStoreOptions.defaults());
    }

    public static NativeActionStateStore openFileStore(Path dir, FileStoreOptions options) {
        return NativeActionStateStore.openFile(dir, options);
    }
}
