package io.durablejournal.store;

import io.durablejournal.ActionState;
import io.durablejournal.ActionStateSerde;
import io.durablejournal.DurableExecutionContext;
import io.durablejournal.store.internal.InFlightEntries;
import io.durablejournal.store.internal.JsonEntryStore;
import io.durablejournal.store.internal.ResumingEntry;
import java.util.Objects;
import java.util.function.LongConsumer;
import java.util.function.LongFunction;

/**
 * The keyed calls of every store whose entries live behind a native store handle
 * (rust/jni/store.rs): put, get, the resuming reads, openContext and prune, written once. A store
 * says only which handle runs a keyed call ({@link #onStore}) and what its business keys need
 * before they are used ({@link #keyOf}: the log store binds each key's key group, loading it
 * from the log first when another subtask owned it).
 */
abstract class NativeKeyedStore implements JsonEntryStore {
    NativeKeyedStore() {}

    /** What the native store counts since it was opened. */
    abstract StoreStats stats();

    /** {@link StoreStats#entries()} of {@link #stats()}. */
    @Override
    public long liveEntries() {
        return stats().entries();
    }

    /** {@link StoreStats#bytesAppended()} of {@link #stats()}. */
    @Override
    public long bytesAppended() {
        return stats().bytesAppended();
    }

    /** Runs a keyed native call on a handle of this store (the handle is open while it runs). */
    abstract <T> T onStore(LongFunction<T> call);

    /** {@link #onStore} for a call that returns nothing. */
    final void runOnStore(LongConsumer call) {
        onStore(h -> {
            call.accept(h);
            return null;
        });
    }

    /** The business key of a keyed call, ready for the native store. */
    abstract BusinessKey keyOf(Object key);

    private EntryKey entryKey(Object key, long seqNum, String actionName, EventIdentity event) {
        return EntryKey.of(keyOf(key), seqNum, actionName, event);
    }

    @Override
    public void put(Object key, long seqNum, String actionName, EventIdentity event, ActionState state) {
        putJson(key, seqNum, actionName, event, ActionStateSerde.serialize(Objects.requireNonNull(state, "state")));
    }

    /** The bytes go to the native store as they are; it parses them and writes the delta. */
    @Override
    public void putJson(Object key, long seqNum, String actionName, EventIdentity event, byte[] stateJson) {
        EntryKey entry = entryKey(key, seqNum, actionName, event);
        Objects.requireNonNull(stateJson, "stateJson");
        runOnStore(h -> StoreJni.put(h, entry, stateJson));
    }

    @Override
    public ActionState get(Object key, long seqNum, String actionName, EventIdentity event) {
        byte[] json = getJson(key, seqNum, actionName, event);
        return json == null ? null : ActionStateSerde.deserialize(json);
    }

    /** The JSON as the native store writes it, without a round trip through {@link ActionState}. */
    @Override
    public byte[] getJson(Object key, long seqNum, String actionName, EventIdentity event) {
        EntryKey entry = entryKey(key, seqNum, actionName, event);
        return onStore(h -> StoreJni.get(h, entry));
    }

    /** The native store splits the slots off in the same crossing and builds the entry itself. */
    @Override
    public ResumingEntry getResuming(Object key, long seqNum, String actionName, EventIdentity event) {
        EntryKey entry = entryKey(key, seqNum, actionName, event);
        return onStore(h -> StoreJni.getResuming(h, entry));
    }

    /** The native store reads every entry it holds in one crossing (rust/jni/store/in_flight.rs). */
    @Override
    public InFlightEntries inFlightEntries(long maxBytes) {
        return onStore(h -> StoreJni.inFlightEntries(h, maxBytes));
    }

    @Override
    public DurableExecutionContext openContext(Object key, long seqNum, String actionName, EventIdentity event, ActionState initial) {
        EntryKey entry = entryKey(key, seqNum, actionName, event);
        byte[] json = initial == null ? null : ActionStateSerde.serialize(initial);
        return onStore(h -> StoreJni.openContext(h, entry, json));
    }

    /** Prunes the entries held here (a log store's key group never loaded here has none). */
    @Override
    public void pruneState(Object key, long seqNumUpTo) {
        BusinessKey business = BusinessKey.of(key);
        runOnStore(h -> StoreJni.prune(h, business, seqNumUpTo));
    }
}
