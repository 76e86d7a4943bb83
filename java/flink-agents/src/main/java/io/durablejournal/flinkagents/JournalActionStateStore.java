package io.durablejournal.flinkagents;

import io.durablejournal.flink.ActionStateStoreFactory;
import io.durablejournal.store.EventIdentity;
import io.durablejournal.store.NativeActionStateStore;
import io.durablejournal.store.StoreStats;
import java.io.Serializable;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import org.apache.flink.agents.api.Event;
import org.apache.flink.agents.plan.actions.Action;
import org.apache.flink.agents.runtime.actionstate.ActionState;
import org.apache.flink.agents.runtime.actionstate.ActionStateStore;
import org.apache.flink.runtime.execution.SuppressRestartsException;

/**
 * Flink Agents' {@link ActionStateStore} SPI over durable-journal's native stores: one per
 * subtask, the file store by default ({@link ActionStateStoreFactory#fileStores}). It is what
 * {@link DurableAgents} hands each subtask of Flink Agents' {@code ActionExecutionOperator}.
 *
 * <p>Flink Agents 0.3.1 puts the whole ActionState on every durable call; it reaches the native
 * store as Flink Agents' JSON, and the store writes only what changed since the entry it holds
 * (bytes per action linear in the calls). The entry is addressed so that the operator finds it
 * again after a restore in another JVM:
 * <ul>
 *   <li><b>key</b>: the Flink key's {@code toString()}. The operator looks an action up with
 *       {@code key.toString()} first and with the key object afterwards; filing every entry under
 *       the key's text makes both find it. The key type's {@code toString()} must be deterministic
 *       across JVMs and tell distinct keys apart (strings, numbers, {@code Row} and tuples do; a
 *       {@code _} in it means nothing); a key class that does not override {@code toString()}
 *       is refused with an {@link IllegalArgumentException}.</li>
 *   <li><b>action</b>: its name, unique in the agent plan (Flink Agents' Kafka store uses the
 *       action's identity hash code, which differs in every JVM).</li>
 *   <li><b>event</b>: a digest of its type and attributes ({@link EventDigests}), never its id,
 *       which is random for every record, a replayed one included.</li>
 * </ul>
 *
 * <p>The store is {@link Serializable} so that it can sit in an operator factory; the native
 * store is opened lazily in the subtask that uses it (each subtask and each restart runs its own
 * copy) and is never serialized. Calls come from the subtask's mailbox thread; they are
 * synchronized all the same.
 */
public final class JournalActionStateStore implements ActionStateStore, Serializable {
    private static final long serialVersionUID = 1L;

    private final ActionStateStoreFactory stores;
    private final int subtask;
    private final int parallelism;
    private final int attempt;

    private transient io.durablejournal.store.ActionStateStore store;
    private transient boolean closed;
    private transient EventDigests events;
    /** Per key text, the sequence number this store has pruned through (see {@link #pruneState}). */
    private transient Map<String, Long> prunedThrough;
    private transient ReplayCounts replays;

    /**
     * @param stores opens the native store of a subtask (called once, on first use)
     * @param subtaskIndex this subtask's index; its markers are the ones it keeps after a restore
     * @param parallelism the operator's parallelism; a checkpoint taken at another one is refused
     * @param attemptNumber Flink's execution attempt: 0 for a job's first start, where a store
     *     holding entries of an earlier run is refused
     */
    public JournalActionStateStore(ActionStateStoreFactory stores, int subtaskIndex, int parallelism, int attemptNumber) {
        this.stores = Objects.requireNonNull(stores, "stores");
        if (subtaskIndex < 0 || parallelism < 1 || subtaskIndex >= parallelism || attemptNumber < 0) {
            throw new IllegalArgumentException("subtask " + subtaskIndex + " of " + parallelism + ", attempt " + attemptNumber);
        }
        this.subtask = subtaskIndex;
        this.parallelism = parallelism;
        this.attempt = attemptNumber;
    }

    @Override
    public synchronized void put(Object key, long seqNum, Action action, Event event, ActionState state) {
        String keyText = keyText(key);
        io.durablejournal.store.ActionStateStore opened = open();
        EventIdentity eventIdentity = events.identityOf(event);
        opened.putJson(keyText, seqNum, action.getName(), eventIdentity, ActionStates.toJson(state));
        replays.written(keyText, seqNum, action.getName(), eventIdentity);
        Long pruned = prunedThrough.get(keyText);
        if (pruned != null && pruned >= seqNum) {
            prunedThrough.remove(keyText);
        }
    }

    @Override
    public synchronized ActionState get(Object key, long seqNum, Action action, Event event) {
        String keyText = keyText(key);
        io.durablejournal.store.ActionStateStore opened = open();
        EventIdentity eventIdentity = events.identityOf(event);
        byte[] found = opened.getJson(keyText, seqNum, action.getName(), eventIdentity);
        if (found == null) {
            return null;
        }
        ActionState state = ActionStates.fromJson(found);
        replays.found(keyText, seqNum, action.getName(), eventIdentity, state);
        return state;
    }

    /**
     * Keeps this subtask's markers from the union of every subtask's, and checks the native store
     * against them (a replaced, wiped or older store is refused instead of silently re-running
     * journaled calls); entries written after the markers are kept, they are the journals the
     * restored job replays. Refused for good ({@link SuppressRestartsException}): a checkpoint
     * taken at another parallelism, markers of another kind of store, and a job's first start
     * (no markers, attempt 0) over a store holding entries of an earlier run. Without markers on
     * a later attempt (the job failed before its first checkpoint) the entries are that run's
     * own journals and are kept.
     */
    @Override
    public synchronized void rebuildState(List<Object> recoveryMarkers) {
        Objects.requireNonNull(recoveryMarkers, "recoveryMarkers");
        io.durablejournal.store.ActionStateStore opened = open();
        try {
            if (recoveryMarkers.isEmpty() && attempt == 0) {
                refuseEntriesOfAnEarlierRun(opened);
            }
            opened.rebuildState(markersOfThisSubtask(recoveryMarkers));
        } catch (RuntimeException e) {
            close();
            throw e;
        }
    }

    /** This subtask's native markers among every subtask's; refuses markers it cannot restore from. */
    private List<byte[]> markersOfThisSubtask(List<Object> recoveryMarkers) {
        List<byte[]> mine = new ArrayList<>();
        for (Object marker : recoveryMarkers) {
            if (!SubtaskMarker.isOurs(marker)) {
                throw refuse("the checkpoint holds a recovery marker of another action state store (" + marker
                        + "); its journals are not in " + describe());
            }
            SubtaskMarker decoded = SubtaskMarker.decode((String) marker);
            if (decoded.parallelism != parallelism) {
                throw refuse("the checkpoint was taken with parallelism " + decoded.parallelism + " but this job runs with "
                        + parallelism + "; each subtask's journal lives in its own store, so restore with parallelism "
                        + decoded.parallelism);
            }
            if (decoded.subtask == subtask) {
                mine.add(decoded.storeMarker);
            }
        }
        if (!recoveryMarkers.isEmpty() && mine.isEmpty()) {
            throw refuse("the checkpoint has no recovery marker of subtask " + subtask + " among its "
                    + recoveryMarkers.size());
        }
        return mine;
    }

    /** A job's first start numbers its records from 0: entries of an earlier run would pass for its own. */
    private void refuseEntriesOfAnEarlierRun(io.durablejournal.store.ActionStateStore opened) {
        if (opened instanceof NativeActionStateStore) {
            long entries = ((NativeActionStateStore) opened).stats().entries();
            if (entries > 0) {
                throw refuse(describe() + " holds " + entries + " entries of an earlier run, but this job starts without"
                        + " a checkpoint; restore the job from its checkpoint or savepoint, or remove the store directory");
            }
        }
    }

    /**
     * Drops the key's entries up to {@code seqNum}. Flink Agents 0.3.1 calls this at every
     * checkpoint for every key that ever completed an input; a key already pruned through
     * {@code seqNum} by this store costs one map lookup and reaches neither JNI nor the disk.
     */
    @Override
    public synchronized void pruneState(Object key, long seqNum) {
        String keyText = keyText(key);
        io.durablejournal.store.ActionStateStore opened = open();
        Long pruned = prunedThrough.get(keyText);
        if (pruned != null && pruned >= seqNum) {
            return;
        }
        opened.pruneState(keyText, seqNum);
        prunedThrough.put(keyText, seqNum);
        replays.pruned(keyText, seqNum);
    }

    /** The native store's position, tagged with this subtask (a {@link String}, see {@link SubtaskMarker}). */
    @Override
    public synchronized Object getRecoveryMarker() {
        return new SubtaskMarker(subtask, parallelism, open().getRecoveryMarker()).encode();
    }

    /** Syncs and releases the native store (the file store's directory lock). Idempotent. */
    @Override
    public synchronized void close() {
        closed = true;
        if (store != null) {
            io.durablejournal.store.ActionStateStore closing = store;
            store = null;
            closing.close();
        }
    }

    /** What this store found for the operator: completed actions re-emitted, interrupted ones resumed. */
    synchronized ReplayCounts replays() {
        open();
        return replays;
    }

    /** The store this one journals into, opened if it was not: for the operator's {@code StoreMetrics}. */
    synchronized io.durablejournal.store.ActionStateStore journalStore() {
        return open();
    }

    /** The native store's counters, or null when it is not one of the native stores (or not open). */
    public synchronized StoreStats stats() {
        return store instanceof NativeActionStateStore ? ((NativeActionStateStore) store).stats() : null;
    }

    /** Where this subtask's journal lives, for messages. */
    public synchronized String describe() {
        String where = store instanceof NativeActionStateStore ? ((NativeActionStateStore) store).describe() : stores.toString();
        return "the action state store of subtask " + subtask + " (" + where + ")";
    }

    private io.durablejournal.store.ActionStateStore open() {
        if (closed) {
            throw new IllegalStateException("the action state store of subtask " + subtask + " is closed");
        }
        if (store == null) {
            try {
                store = Objects.requireNonNull(stores.open(subtask, parallelism), "the store factory returned null");
            } catch (RuntimeException e) {
                throw e;
            } catch (Exception e) {
                throw new IllegalStateException("cannot open the action state store of subtask " + subtask + " with "
                        + stores + ": " + e.getMessage(), e);
            }
            events = new EventDigests();
            prunedThrough = new HashMap<>();
            replays = new ReplayCounts();
        }
        return store;
    }

    /** The text the store files a Flink key under (see the class comment). */
    static String keyText(Object key) {
        Objects.requireNonNull(key, "key");
        if (key instanceof String) {
            return (String) key;
        }
        Class<?> type = key.getClass();
        try {
            if (type.getMethod("toString").getDeclaringClass() == Object.class) {
                throw new IllegalArgumentException("Flink key of type " + type.getName() + " does not override toString(): the"
                        + " durable journal files an action under its key's text, which must be the same in every JVM");
            }
        } catch (NoSuchMethodException e) {
            throw new IllegalStateException("every class has toString()", e);
        }
        return Objects.requireNonNull(key.toString(), "key.toString()");
    }

    private static SuppressRestartsException refuse(String reason) {
        return new SuppressRestartsException(new IllegalStateException(reason));
    }

    @Override
    public String toString() {
        return "JournalActionStateStore{subtask " + subtask + " of " + parallelism + ", attempt " + attempt + ", " + stores + "}";
    }
}
