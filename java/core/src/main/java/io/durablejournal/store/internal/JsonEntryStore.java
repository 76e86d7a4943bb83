package io.durablejournal.store.internal;

import io.durablejournal.store.ActionStateStore;
import io.durablejournal.store.EventIdentity;

/**
 * The entry calls only the native stores answer: an entry read and written as the JSON of Flink
 * Agents' {@code ActionStateSerde} (the format {@link io.durablejournal.ActionStateSerde} reads
 * and writes), parsed and written by the native store itself, so a caller holding that JSON skips
 * the {@link io.durablejournal.ActionState} in between. Callers reach any store through {@link
 * JsonEntries}, which falls back to the public {@link ActionStateStore} methods for a store that
 * does not implement this one.
 */
public interface JsonEntryStore extends ActionStateStore {
    /**
     * {@link #put} for a state already serialized as that JSON.
     *
     * @throws io.durablejournal.JournalException with code {@code MALFORMED_JSON} when the bytes
     *     are not an ActionState; nothing is stored then
     */
    void putJson(Object key, long seqNum, String actionName, EventIdentity event, byte[] stateJson);

    /**
     * {@link #get} returning the stored state as that JSON (every slot with its explicit status,
     * payloads base64), or null on a miss (which hides later sequence numbers exactly as {@link
     * #get} does).
     */
    byte[] getJson(Object key, long seqNum, String actionName, EventIdentity event);

    /**
     * {@link #getJson} for a reader that answers the entry's recorded calls itself (and reads the
     * rest through Flink Agents' serde): the native store splits the call slots off the JSON in
     * the same crossing ({@link ResumingEntry#isSplit}), so the payloads are neither written as
     * base64 nor read back. Null on a miss, which hides later sequence numbers exactly as {@link
     * #get} does.
     */
    ResumingEntry getResuming(Object key, long seqNum, String actionName, EventIdentity event);

    /**
     * The {@link #getResuming} answers of the store's interrupted entries, as many as fit {@code
     * maxBytes} of their JSON and hits, in one crossing ({@link InFlightEntries}). Reading changes
     * nothing in the store.
     */
    InFlightEntries inFlightEntries(long maxBytes);
}
