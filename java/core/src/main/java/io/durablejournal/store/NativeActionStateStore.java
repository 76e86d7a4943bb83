package io.durablejournal.store;

import io.durablejournal.internal.Utf8;
import io.durablejournal.ActionState;
import io.durablejournal.ActionStateSerde;
import io.durablejournal.DurableExecutionContext;
import io.durablejournal.internal.NativeHandle;
import java.nio.file.Path;
import java.util.List;
import java.util.Objects;

/**
 * The native store (rust/store) behind {@link ActionStateStore}: the in-memory store or the
 * append-only file store. No store logic lives here; this class owns the native handle, checks
 * arguments and marshals.
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
public final class NativeActionStateStore implements ActionStateStore {
    private final Path directory;
    private final NativeHandle store;
    /** Null unless group commit has a time bound. */
    private final SyncTimer syncTimer;

    private NativeActionStateStore(long handle, Path directory, java.time.Duration maxSyncDelay) {
        this.store = new NativeHandle(this, "ActionStateStore", handle, NativeStore::close);
        this.directory = directory;
        this.syncTimer = maxSyncDelay == null ? null : new SyncTimer(store, maxSyncDelay, String.valueOf(directory));
    }

    static NativeActionStateStore inMemory() {
        return new NativeActionStateStore(NativeStore.openMemory(), null, null);
    }

    static NativeActionStateStore openFile(Path dir, FileStoreOptions options) {
        Objects.requireNonNull(dir, "dir");
        Objects.requireNonNull(options, "options");
        Path absolute = dir.toAbsolutePath();
        long handle = NativeStore.openFile(Utf8.encode(absolute.toString(), "dir"), options.getGroupCommitBatch(),
                options.rawMinGarbageBytes(), options.garbageRatio());
        return new NativeActionStateStore(handle, absolute, options.getMaxSyncDelay());
    }

    /** Where the store lives, for people: its directory, or "in-memory". */
    public String describe() {
        return directory == null ? "in-memory" : directory.toString();
    }

    @Override
    public void put(Object key, long seqNum, String actionName, EventIdentity event, ActionState state) {
        putJson(key, seqNum, actionName, event, ActionStateSerde.serialize(Objects.requireNonNull(state, "state")));
    }

    /** The bytes go to the native store as they are; it parses them and writes the delta. */
    @Override
    public void putJson(Object key, long seqNum, String actionName, EventIdentity event, byte[] stateJson) {
        BusinessKey k = BusinessKey.of(key);
        byte[] action = Utf8.encode(actionName, "actionName");
        Objects.requireNonNull(event, "event");
        Objects.requireNonNull(stateJson, "stateJson");
        store.accept(h -> NativeStore.put(h, k.kind, k.number, k.bytes, k.typeName, seqNum, action, event.kind(), event.payload(), stateJson));
    }

    @Override
    public ActionState get(Object key, long seqNum, String actionName, EventIdentity event) {
        byte[] json = getJson(key, seqNum, actionName, event);
        return json == null ? null : ActionStateSerde.deserialize(json);
    }

    /** The JSON as the native store writes it, without a round trip through {@link ActionState}. */
    @Override
    public byte[] getJson(Object key, long seqNum, String actionName, EventIdentity event) {
        BusinessKey k = BusinessKey.of(key);
        byte[] action = Utf8.encode(actionName, "actionName");
        Objects.requireNonNull(event, "event");
        return store.apply(h -> NativeStore.get(h, k.kind, k.number, k.bytes, k.typeName, seqNum, action, event.kind(), event.payload()));
    }

    /** The native store splits the slots off in the same crossing (one byte array, decoded here). */
    @Override
    public ResumingEntry getResuming(Object key, long seqNum, String actionName, EventIdentity event) {
        BusinessKey k = BusinessKey.of(key);
        byte[] action = Utf8.encode(actionName, "actionName");
        Objects.requireNonNull(event, "event");
        byte[] split = store.apply(h -> NativeStore.getResuming(h, k.kind, k.number, k.bytes, k.typeName, seqNum, action, event.kind(),
                event.payload()));
        return split == null ? null : decodeSplit(split);
    }

    /** Decodes {@code get_split}'s layout: big-endian lengths, a payload length of -1 for null. */
    static ResumingEntry decodeSplit(byte[] split) {
        java.nio.ByteBuffer in = java.nio.ByteBuffer.wrap(split);
        byte[] json = new byte[in.getInt()];
        in.get(json);
        int callCount = in.getInt();
        int hitCount = in.getInt();
        List<io.durablejournal.CallResult> hits = new java.util.ArrayList<>(hitCount);
        for (int i = 0; i < hitCount; i++) {
            int idLength = in.getInt();
            String id = new String(split, in.position(), idLength, java.nio.charset.StandardCharsets.UTF_8);
            in.position(in.position() + idLength);
            boolean failed = in.get() != 0;
            byte[] result = payload(in);
            byte[] exception = payload(in);
            if (failed != (exception != null)) {
                throw new IllegalStateException("slot " + i + " of a split entry: failed=" + failed + " without the matching payload");
            }
            hits.add(new io.durablejournal.CallResult(id, result, exception));
        }
        if (in.hasRemaining()) {
            throw new IllegalStateException(in.remaining() + " bytes left after a split entry");
        }
        return ResumingEntry.split(json, callCount, hits);
    }

    private static byte[] payload(java.nio.ByteBuffer in) {
        int length = in.getInt();
        if (length < 0) {
            return null;
        }
        byte[] bytes = new byte[length];
        in.get(bytes);
        return bytes;
    }

    @Override
    public DurableExecutionContext openContext(Object key, long seqNum, String actionName, EventIdentity event, ActionState initial) {
        BusinessKey k = BusinessKey.of(key);
        byte[] action = Utf8.encode(actionName, "actionName");
        Objects.requireNonNull(event, "event");
        byte[] json = initial == null ? null : ActionStateSerde.serialize(initial);
        return store.apply(h -> NativeStore.openContext(h, k.kind, k.number, k.bytes, k.typeName, seqNum, action, event.kind(), event.payload(), json));
    }

    @Override
    public void rebuildState(List<byte[]> recoveryMarkers) {
        Objects.requireNonNull(recoveryMarkers, "recoveryMarkers");
        byte[][] markers = new byte[recoveryMarkers.size()][];
        for (int i = 0; i < markers.length; i++) {
            markers[i] = Objects.requireNonNull(recoveryMarkers.get(i), "recoveryMarkers[" + i + "]");
        }
        store.accept(h -> NativeStore.rebuildState(h, markers));
    }

    @Override
    public void pruneState(Object key, long seqNumUpTo) {
        BusinessKey k = BusinessKey.of(key);
        store.accept(h -> NativeStore.prune(h, k.kind, k.number, k.bytes, k.typeName, seqNumUpTo));
    }

    @Override
    public byte[] getRecoveryMarker() {
        return store.apply(NativeStore::recoveryMarker);
    }

    /** Makes every record written so far durable (matters under group commit). */
    public void sync() {
        store.accept(NativeStore::sync);
    }

    public StoreStats stats() {
        return new StoreStats(store.apply(NativeStore::stats));
    }

    /** {@link StoreStats#entries()}. */
    @Override
    public long liveEntries() {
        return stats().entries();
    }

    /** {@link StoreStats#bytesAppended()}: -1 for the in-memory store. */
    @Override
    public long bytesAppended() {
        return stats().bytesAppended();
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
