package io.durablejournal.store;

import io.durablejournal.ActionState;
import io.durablejournal.DurableExecutionContext;
import java.util.List;

/**
 * Where the ActionState of every action execution lives between a call and the failover that
 * replays it (spec §4). An entry is addressed by the business key of the input record, its
 * per-key sequence number, the action name and the identity of the triggering event.
 *
 * <p>Business keys keep their type: {@code String}, {@code Long}, {@code Integer} and {@code
 * byte[]} are distinct key kinds (so {@code 1L} and {@code "1"} never collide, and a {@code _}
 * inside a key means nothing); any other object is a typed key made of its class name and the
 * UTF-8 of its {@code toString()}, which must therefore be deterministic and must distinguish
 * the values that should be distinct keys. A class that does not override {@code toString()}
 * is refused with an {@link IllegalArgumentException}. A {@link GroupedKey} is its key, placed
 * in the key group it names (only the log store has key groups): every method taking a key takes
 * one.
 *
 * <p>Implementations are thread-safe. Every method except {@link #close()} throws {@link
 * IllegalStateException} once the store is closed; null arguments throw {@link
 * NullPointerException}; storage failures throw {@link io.durablejournal.JournalException} with
 * a {@code STORE_*} code and a message naming where (the file, or the log's topic).
 *
 * <p>This is the interface a store of your own implements (through an {@code
 * ActionStateStoreFactory} of yours). The native stores answer more, for the library's own
 * callers only ({@link io.durablejournal.store.internal.JsonEntryStore}, internal).
 */
public interface ActionStateStore extends AutoCloseable {
    /**
     * Stores a whole ActionState, replacing any entry at this address. Only what changed since the
     * stored entry is written: a state that extends it (calls appended, a PENDING slot finalized,
     * the journal cut, memory updates and output events appended, completion) costs a record of
     * the new parts, an equal state costs nothing, and anything else is written whole. So a caller
     * that puts the whole state after every call (Flink Agents' store contract) writes bytes linear
     * in the calls. {@link #get} returns exactly the last state put.
     */
    void put(Object key, long seqNum, String actionName, EventIdentity event, ActionState state);

    /**
     * The stored ActionState, or null. A miss means the re-run has left the recorded history at
     * {@code seqNum}: every entry of the same business key with a larger sequence number is
     * dropped too (other keys are untouched).
     */
    ActionState get(Object key, long seqNum, String actionName, EventIdentity event);

    /**
     * A journal over the stored ActionState, or over {@code initial} (stored first) when there is
     * none; a null {@code initial} means an empty ActionState. Every persisted mutation of the
     * returned context is written to this store as one delta record before the call returns, so
     * recording call n costs the size of call n, not of all n calls. The caller closes the
     * context; closing the store first makes the context's later mutations fail with a {@code
     * CLOSED} JournalException.
     */
    DurableExecutionContext openContext(Object key, long seqNum, String actionName, EventIdentity event, ActionState initial);

    /**
     * After a Flink restore: checks that the store holds everything the checkpoint's markers saw
     * (refusing a different or older store with an {@code ILLEGAL_STATE} JournalException). Entries
     * written after the markers are kept: they are the journals the restored job replays.
     */
    void rebuildState(List<byte[]> recoveryMarkers);

    /** Drops every entry of {@code key} with a sequence number up to and including {@code seqNumUpTo}. */
    void pruneState(Object key, long seqNumUpTo);

    /**
     * Drops the entries of {@code key} at exactly {@code seqNum}. An operator whose records of one
     * key may run in several subtasks at once (Flink's async operator after a rescale) prunes with
     * this, so that no subtask drops an entry another one still replays. The default prunes up to
     * {@code seqNum}, which is the same for a store that is only restored at the parallelism it was
     * written with: there a key's records all run in one subtask, in order.
     */
    default void pruneStateAt(Object key, long seqNum) {
        pruneState(key, seqNum);
    }

    /**
     * How many entries the store holds now, or -1 when it cannot tell (the default).
     *
     * <p>The Flink operators ask this when a job starts for the first time without a checkpoint:
     * the job numbers its records from 0 again, so an entry already in the store belongs to an
     * earlier run and would pass for this run's journal (its stored output re-emitted instead of
     * running the action). A count above 0 refuses the start; a store answering -1 is not checked,
     * so a store of your own (from your {@code ActionStateStoreFactory}) should answer it. The
     * operators also report it as the {@code storeLiveEntries} metric.
     */
    default long liveEntries() {
        return -1;
    }

    /**
     * Bytes the store has written to its medium since it was opened (its records with their
     * framing), or -1 when it does not count them: the default, and the in-memory store, which
     * writes nothing. The Flink operators report it as the {@code storeBytesAppended} metric.
     */
    default long bytesAppended() {
        return -1;
    }

    /**
     * Whether the store keeps a copy of each completed action for replays ({@link
     * FileStoreOptions#retainCompleted}); an operator then also stores the record that triggered
     * the action, which a replay needs. False by default.
     */
    default boolean retainsCompleted() {
        return false;
    }

    /** The store's current position for Flink to checkpoint; everything before it is durable. */
    byte[] getRecoveryMarker();

    /** Syncs and releases the store (for the file store: its directory lock). Idempotent. */
    @Override
    void close();
}
