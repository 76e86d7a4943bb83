package io.durablejournal.store.internal;

import io.durablejournal.ActionState;
import io.durablejournal.ActionStateSerde;
import io.durablejournal.store.ActionStateStore;
import io.durablejournal.store.EventIdentity;

/**
 * The calls of {@link JsonEntryStore} on any {@link ActionStateStore}: the native store's own
 * when it is one, else the public methods of a store of the user's (its {@code put} of the parsed
 * state, its {@code get} serialized, an entry that is never split).
 */
public final class JsonEntries {
    private JsonEntries() {
    }

    /** {@link JsonEntryStore#putJson} on {@code store}. */
    public static void put(ActionStateStore store, Object key, long seqNum, String actionName, EventIdentity event,
            byte[] stateJson) {
        if (store instanceof JsonEntryStore) {
            ((JsonEntryStore) store).putJson(key, seqNum, actionName, event, stateJson);
        } else {
            store.put(key, seqNum, actionName, event, ActionStateSerde.deserialize(stateJson));
        }
    }

    /** {@link JsonEntryStore#getJson} on {@code store}. */
    public static byte[] get(ActionStateStore store, Object key, long seqNum, String actionName, EventIdentity event) {
        if (store instanceof JsonEntryStore) {
            return ((JsonEntryStore) store).getJson(key, seqNum, actionName, event);
        }
        ActionState state = store.get(key, seqNum, actionName, event);
        return state == null ? null : ActionStateSerde.serialize(state);
    }

    /** {@link JsonEntryStore#getResuming} on {@code store}: the whole JSON ({@link ResumingEntry#whole}) from a user's store. */
    public static ResumingEntry getResuming(ActionStateStore store, Object key, long seqNum, String actionName,
            EventIdentity event) {
        if (store instanceof JsonEntryStore) {
            return ((JsonEntryStore) store).getResuming(key, seqNum, actionName, event);
        }
        byte[] json = get(store, key, seqNum, actionName, event);
        return json == null ? null : ResumingEntry.whole(json);
    }

    /** {@link JsonEntryStore#inFlightEntries} on {@code store}: none from a user's store (its entries are asked for one by one). */
    public static InFlightEntries inFlightEntries(ActionStateStore store, long maxBytes) {
        java.util.Objects.requireNonNull(store, "store");
        if (store instanceof JsonEntryStore) {
            return ((JsonEntryStore) store).inFlightEntries(maxBytes);
        }
        return InFlightEntries.none();
    }
}
