package io.durablejournal.store;

import io.durablejournal.internal.LibraryLog;

import io.durablejournal.internal.Utf8;
import io.durablejournal.internal.NativeHandle;
import java.nio.file.Path;
import java.util.List;
import java.util.Objects;
import java.util.function.LongFunction;

/**
 * The native store (rust/store) behind {@link ActionStateStore}: the in-memory store or the
 * append-only file store. No store logic lives here; this class owns the native handle (its keyed
 * calls are {@link NativeKeyedStore}'s, shared with the log store).
 *
 * <p>One instance is meant to be shared by every action of an operator. The native store is
 * guarded by a mutex in Rust, so direct calls and the journals of {@link #openContext} may run
 * on any threads; each journal keeps its own reference to the native store, so closing this
 * object never leaves a journal pointing at freed memory (its next write fails with a {@code
 * CLOSED} JournalException instead). Calls on this object are serialized by its {@code
 * NativeHandle}, which also keeps {@link #close()} from freeing the store under a call in
 * progress. A store dropped without {@code close()} is closed once it is garbage collected;
 * close it anyway (a file store holds its directory lock until then).
 */
public final class NativeActionStateStore extends NativeKeyedStore {
    private static final LibraryLog LOG = LibraryLog.of(NativeActionStateStore.class);
    private final Path directory;
    private final NativeHandle store;
    /** Null unless group commit has a time bound. */
    private final SyncTimer syncTimer;
    private final boolean retainsCompleted;

    private NativeActionStateStore(long handle, Path directory, java.time.Duration maxSyncDelay) {
        this(handle, directory, maxSyncDelay, false);
    }

    private NativeActionStateStore(long handle, Path directory, java.time.Duration maxSyncDelay, boolean retainsCompleted) {
        this.retainsCompleted = retainsCompleted;
        this.store = new NativeHandle(this, "ActionStateStore", handle, StoreJni::close);
        this.directory = directory;
        this.syncTimer = maxSyncDelay == null ? null : new SyncTimer(store, maxSyncDelay, String.valueOf(directory));
    }

    static NativeActionStateStore inMemory() {
        return new NativeActionStateStore(StoreJni.openMemory(), null, null);
    }

    static NativeActionStateStore openFile(Path dir, FileStoreOptions options) {
        Objects.requireNonNull(dir, "dir");
        Objects.requireNonNull(options, "options");
        Path absolute = dir.toAbsolutePath();
        long handle = StoreJni.openFile(Utf8.encode(absolute.toString(), "dir"), options.getGroupCommitBatch(),
                options.rawMinGarbageBytes(), options.garbageRatio(), options.getPermissionCheck().ordinal(),
                options.getRetainFor() == null ? 0 : options.getRetainFor().toMillis(), options.getRetainCount(),
                options.getPlanDigest() == null ? null : Utf8.encode(options.getPlanDigest(), "planDigest"));
        NativeActionStateStore store = new NativeActionStateStore(handle, absolute, options.getMaxSyncDelay(),
                options.getRetainFor() != null);
        byte[] warning = store.store.apply(StoreJni::permissionWarning);
        if (warning != null) {
            LOG.warn(new String(warning, java.nio.charset.StandardCharsets.UTF_8));
        }
        return store;
    }

    @Override
    public boolean retainsCompleted() {
        return retainsCompleted;
    }

    /** Where the store lives, for people: its directory, or "in-memory". */
    public String describe() {
        return directory == null ? "in-memory" : directory.toString();
    }

    @Override
    <T> T onStore(LongFunction<T> call) {
        return store.apply(call);
    }

    @Override
    BusinessKey keyOf(Object key) {
        return BusinessKey.of(key);
    }

    @Override
    public void rebuildState(List<byte[]> recoveryMarkers) {
        byte[][] markers = StoreJni.markerArray(recoveryMarkers);
        store.accept(h -> StoreJni.rebuildState(h, markers));
    }

    @Override
    public byte[] getRecoveryMarker() {
        return store.apply(StoreJni::recoveryMarker);
    }

    /** Makes every record written so far durable (matters under group commit). */
    public void sync() {
        store.accept(StoreJni::sync);
    }

    /** Its {@link StoreStats#bytesAppended() bytes appended} are -1 for the in-memory store. */
    @Override
    public StoreStats stats() {
        return store.apply(StoreJni::stats);
    }

    public boolean isClosed() {
        return store.isClosed();
    }

    /**
     * Syncs and closes the store (releasing a file store's directory lock); a call in progress on
     * another thread finishes first. Idempotent. Contexts it opened fail their next write with
     * {@code CLOSED}.
     */
    @Override
    public void close() {
        if (syncTimer != null) {
            syncTimer.stop();
        }
        store.close();
    }

    @Override
    public String toString() {
        return "NativeActionStateStore{" + describe() + "}";
    }
}
