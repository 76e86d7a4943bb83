package io.durablejournal.flinkagents;

import io.durablejournal.flink.ActionStateStoreFactory;
import io.durablejournal.flink.SubtaskScope;
import io.durablejournal.flink.internal.SubtaskStores;
import io.durablejournal.flinkagents.ServedStates.Served;
import io.durablejournal.store.EventIdentity;
import io.durablejournal.store.NativeActionStateStore;
import io.durablejournal.store.StoreStats;
import io.durablejournal.store.internal.InFlightEntries;
import io.durablejournal.store.internal.JsonEntries;
import io.durablejournal.store.internal.ResumingEntry;
import java.io.Serializable;
import java.util.List;
import java.util.Objects;
import java.util.function.Supplier;
import org.apache.flink.agents.api.Event;
import org.apache.flink.agents.plan.actions.Action;
import org.apache.flink.agents.runtime.actionstate.ActionState;
import org.apache.flink.agents.runtime.actionstate.ActionStateStore;
import org.apache.flink.api.common.JobID;
import org.apache.flink.runtime.execution.SuppressRestartsException;

/**
 * Flink Agents' {@link ActionStateStore} SPI over durable-journal's stores: one per subtask,
 * opened by any {@link ActionStateStoreFactory} (the file store, {@link
 * ActionStateStoreFactory#fileStores}, or the Kafka store). It is what {@link DurableAgents}
 * hands each subtask of Flink Agents' {@code ActionExecutionOperator}.
 *
 * <p>Flink Agents 0.3.1 puts the whole ActionState on every durable call; it reaches the native
 * store as Flink Agents' JSON, and the store writes only what changed since the entry it holds
 * (bytes per action linear in the calls). The entry is addressed so that the operator finds it
 * again after a restore in another JVM (its key, action and event: {@link EntryAddressing}).
 *
 * <p>This class is the SPI and the store's lifecycle; it addresses entries with {@link
 * EntryAddressing}, tracks what it served with {@link ServedStates}, picks the markers to restore
 * with {@link RestorePolicy}, keeps the open native journals in {@link OpenJournals} and serves
 * the answers it read at a restore with {@link RestoredEntries}.
 *
 * <p>The store is {@link Serializable} so that it can sit in an operator factory; the
 * durable-journal store is opened lazily in the subtask that uses it (each subtask and each restart runs its own
 * copy) and is never serialized. Calls come from the subtask's mailbox thread; they are
 * synchronized all the same.
 */
public final class JournalActionStateStore implements ActionStateStore, Serializable {
    private static final long serialVersionUID = 1L;

    private final ActionStateStoreFactory stores;
    private final int subtask;
    private final int parallelism;
    private final int maxParallelism;
    private final int attempt;
    private final JobID jobId;
    /** The semantics of the durable calls of its actions that declare none; null: at least once. */
    private io.durablejournal.CallSemantics defaultCallSemantics;

    private transient io.durablejournal.store.ActionStateStore store;
    /** Where entries are filed: made on first use after the store was built or deserialized. */
    private transient EntryAddressing addressing;
    private transient boolean closed;
    private transient EventIdentities events;
    private transient PrunedThrough prunedThrough;
    private transient ReplayCounts replays;
    /** The native journals opened and not yet released. */
    private transient OpenJournals openJournals;
    /** The entry the store can answer a {@code get} of without the native store, if any. */
    private transient KnownEntry known;
    /** The interrupted entries served as stand-ins, their recorded states not decoded yet. */
    private transient DeferredStates deferred;
    /** The native store's answers for the actions in flight at the restore, until they ask. */
    private transient RestoredEntries restored;

    /**
     * The store of one subtask of Flink Agents' operator; the store itself is opened on first use
     * ({@link #rebuildState} in the operator), with the {@link SubtaskScope} these make.
     *
     * @param stores opens the subtask's store ({@link ActionStateStoreFactory#open(SubtaskScope)})
     * @param subtaskIndex this subtask's index; a per-subtask store keeps its markers after a restore
     * @param parallelism the operator's parallelism; a per-subtask store refuses a checkpoint taken
     *     at another one
     * @param maxParallelism the number of Flink key groups (the job's max parallelism)
     * @param attemptNumber Flink's execution attempt: 0 for a job's first start, where a store
     *     holding entries of an earlier run is refused
     * @param jobId the running job (the Kafka store names a new history after it)
     */
    public JournalActionStateStore(ActionStateStoreFactory stores, int subtaskIndex, int parallelism, int maxParallelism,
            int attemptNumber, JobID jobId) {
        this.stores = Objects.requireNonNull(stores, "stores");
        if (attemptNumber < 0) {
            throw new IllegalArgumentException("attempt " + attemptNumber);
        }
        this.subtask = subtaskIndex;
        this.parallelism = parallelism;
        this.maxParallelism = maxParallelism;
        this.attempt = attemptNumber;
        this.jobId = jobId;
        scope(false); // checks the subtask, the parallelisms and the job id
    }

    /**
     * The job's default semantics of the durable calls of its actions (Java, and Python's {@code
     * durable_execute}) that declare none (null, the default: at least once); the native journal
     * decides with it.
     */
    public JournalActionStateStore withDefaultCallSemantics(io.durablejournal.CallSemantics semantics) {
        this.defaultCallSemantics = semantics;
        return this;
    }

    /** The default set by {@link #withDefaultCallSemantics}, or null. */
    io.durablejournal.CallSemantics defaultCallSemantics() {
        return defaultCallSemantics;
    }

    /**
     * Stores the action's state. For an action on the native journal, the completed state the
     * operator built from {@link NativeJournalContext#stateToComplete} with nothing added (no memory
     * updates, no output events) is written by the open journal itself ({@link
     * NativeJournalContext#completeInJournal}): the same record the whole state would make (the
     * entry marked completed, its calls dropped), without Flink Agents' serde of the state.
     */
    @Override
    public synchronized void put(Object key, long seqNum, Action action, Event event, ActionState put) {
        String keyText = EntryAddressing.keyText(key);
        io.durablejournal.store.ActionStateStore opened = open();
        known.forget();
        restored.changing(keyText);
        JournalAddress address = address(key, keyText, seqNum, action, event);
        EventIdentity eventIdentity = address.event;
        ActionState state = deferred.stateToPut(address, put);
        deferred.written(address);
        NativeJournalContext journal = state.isCompleted() ? openJournals.get(address) : null;
        if (journal == null || !journal.completeInJournal(state)) {
            JsonEntries.put(opened, address.storeKey, seqNum, action.getName(), eventIdentity, ActionStates.toJson(state));
        }
        replays.written(keyText, seqNum, action.getName(), eventIdentity);
        prunedThrough.written(keyText, seqNum);
        if (state.isCompleted()) {
            // The action is done: its journal will not be written again.
            if (journal != null) {
                openJournals.completed(address, journal);
            }
        } else if (JournaledPlans.isJournaled(action) && KnownEntry.isInitial(state)) {
            known.initial(address, state.getTaskEvent());
        }
    }

    /**
     * The stored state, or null (a miss hides the key's later sequence numbers). While the
     * action's native journal is open, the state the operator was served without call results
     * ({@link NativeJournalContext#stateToComplete}): the journal holds the calls, and the
     * operator reads the state there only to complete it, which drops them.
     */
    @Override
    public synchronized ActionState get(Object key, long seqNum, Action action, Event event) {
        String keyText = EntryAddressing.keyText(key);
        io.durablejournal.store.ActionStateStore opened = open();
        boolean journaled = action.getExec() instanceof JournaledJavaFunction;
        InFlightEntries.Entry answered = journaled ? restored.take(keyText, seqNum, action.getName(), event, events) : null;
        if (answered != null) {
            return served(addressing().address(key, keyText, seqNum, action.getName(), answered.event, this::describe), key,
                    action, event, answered.resuming());
        }
        restored.changing(keyText);
        JournalAddress address = address(key, keyText, seqNum, action, event);
        EventIdentity eventIdentity = address.event;
        NativeJournalContext journaling = openJournals.get(address);
        if (journaling != null && journaling.isOpen()) {
            // The action's native journal holds its calls; the operator completes the state.
            known.forget();
            ActionState inProgress = journaling.stateToComplete();
            ServedStates.served(new Served(this, address, key, action, event, inProgress, null));
            return inProgress;
        }
        if (known.knows(address)) {
            // The store has not changed since it answered or created this entry (see KnownEntry).
            ActionState state = known.state();
            if (state != null) {
                ServedStates.served(new Served(this, address, key, action, event, state, null));
            }
            return state;
        }
        if (journaled) {
            return getForNativeJournal(opened, address, key, action, event);
        }
        byte[] found = JsonEntries.get(opened, address.storeKey, seqNum, action.getName(), eventIdentity);
        if (found == null) {
            known.missing(address);
            return null;
        }
        known.forget();
        ActionState state = ActionStates.fromJson(found);
        if (state.isCompleted()) {
            // The operator re-emits these output events instead of running the action: they keep
            // the identities they had when the action emitted them.
            events.reemitted(found, state.getOutputEvents());
        }
        replays.found(keyText, seqNum, action.getName(), eventIdentity, state.isCompleted(), state.getCallResults().size());
        ServedStates.served(new Served(this, address, key, action, event, state, null));
        return state;
    }

    /**
     * {@link #get} for an action on the native journal: the store splits the call slots off
     * ({@code getResuming}), so Flink Agents' serde reads the entry without them, and the action's
     * journal answers the recorded hits the native store computed ({@link ResumingEntry#hits}).
     * The operator itself needs only the rest: whether the entry is completed, and then its outputs
     * and memory updates (a completed entry holds no calls).
     */
    private ActionState getForNativeJournal(io.durablejournal.store.ActionStateStore opened, JournalAddress address, Object key,
            Action action, Event event) {
        ResumingEntry found = JsonEntries.getResuming(opened, address.storeKey, address.seqNum, address.actionName, address.event);
        if (found == null) {
            known.missing(address);
            return null;
        }
        return served(address, key, action, event, found);
    }

    /** Serves the entry {@code found} at {@code address} (from the store or its {@link RestoredEntries}). */
    private ActionState served(JournalAddress address, Object key, Action action, Event event, ResumingEntry found) {
        known.forget();
        DeferredStates.Deferred standIn = found.isSplit() && !found.isCompleted()
                ? deferred.standInFor(address, event, found.stateJson()) : null;
        ActionState state = standIn != null ? standIn.standIn : ActionStates.fromJson(found.stateJson());
        if (state.isCompleted()) {
            events.reemitted(found.stateJson(), state.getOutputEvents());
        }
        int calls = found.isSplit() ? found.callCount() : state.getCallResults().size();
        replays.found(address.keyText, address.seqNum, address.actionName, address.event, state.isCompleted(), calls);
        ServedStates.served(new Served(this, address, key, action, event, state, found.isSplit() ? found.hits() : null, standIn));
        return state;
    }

    /** The run of the action served {@code standIn} at {@code address} ended without completing it. */
    synchronized void runEnded(JournalAddress address, DeferredStates.Deferred standIn) {
        if (deferred != null) {
            deferred.runEnded(address, standIn);
        }
    }

    /** A native journal context for the action the store served ({@link ServedStates#installJournal}). */
    synchronized NativeJournalContext journalContext(Served served) {
        return new NativeJournalContext(this, served.address, served.key, served.address.seqNum, served.action, served.event,
                served.state, served.hits, served.deferred);
    }

    /**
     * Opens the core journal of the entry at {@code address} (Flink Agents' operator put it before
     * the action ran); the store releases it when the action's completed state is put, when the
     * entry is pruned, or when the store closes.
     */
    synchronized io.durablejournal.DurableExecutionContext openJournal(JournalAddress address, NativeJournalContext owner) {
        io.durablejournal.store.ActionStateStore opened = open();
        known.forget();
        restored.changing(address.keyText);
        io.durablejournal.DurableExecutionContext journal = opened.openContext(address.storeKey, address.seqNum,
                address.actionName, address.event, null);
        openJournals.opened(address, owner);
        return journal;
    }

    /**
     * Opens the subtask's store from the checkpoint's markers: Flink Agents' operator calls this
     * first, in {@code initializeState}, with the union of every subtask's markers (none when the
     * job starts without a checkpoint of this store). The store is opened with this subtask's
     * {@link SubtaskScope}, restored when there are markers, and {@link SubtaskStores#open}
     * checks or rebuilds it:
     * <ul>
     *   <li>a store that restores at any parallelism (the Kafka store) gets the markers of every
     *       subtask and rebuilds the journals of the key groups this subtask now owns;</li>
     *   <li>a per-subtask store (the file store) keeps this subtask's markers; a checkpoint taken
     *       at another parallelism is refused;</li>
     *   <li>without markers, a job's first attempt over a file store holding entries of an
     *       earlier run is refused; a later attempt (the job failed before its first checkpoint)
     *       keeps them, they are that run's own journals.</li>
     * </ul>
     * Refusals fail the job for good ({@link SuppressRestartsException}), as do markers of
     * another kind of store.
     *
     * @throws IllegalStateException when the store was already used: it is restored before any use
     */
    @Override
    public synchronized void rebuildState(List<Object> recoveryMarkers) {
        Objects.requireNonNull(recoveryMarkers, "recoveryMarkers");
        checkOpen();
        if (store != null) {
            throw new IllegalStateException(describe() + " is restored before it is used, and it was used already");
        }
        List<byte[]> markers = RestorePolicy.markersToRestore(recoveryMarkers, stores, subtask, parallelism, describe());
        try {
            opened(SubtaskStores.open(stores, scope(!recoveryMarkers.isEmpty()), markers));
            restored.restored(store);
            replays.restored(!recoveryMarkers.isEmpty());
        } catch (RuntimeException e) {
            throw e;
        } catch (Exception e) {
            throw cannotOpen(e);
        }
    }

    /** A checkpoint completed: the restore's INFO line may be due, and unasked answers of the restore go. */
    synchronized void checkpointCompleted() {
        if (replays != null) {
            replays.reportRestore(true, this::describe, attempt);
            restored.changingAny();
        }
    }

    /**
     * Drops the key's entries up to {@code seqNum}. Flink Agents 0.3.1 calls this at every
     * checkpoint for every key that ever completed an input; a key already pruned through
     * {@code seqNum} by this store costs one map lookup and reaches neither JNI nor the disk.
     */
    @Override
    public synchronized void pruneState(Object key, long seqNum) {
        String keyText = EntryAddressing.keyText(key);
        io.durablejournal.store.ActionStateStore opened = open();
        known.forget();
        if (prunedThrough.covers(keyText, seqNum)) {
            return;
        }
        restored.changingAny();
        opened.pruneState(addressing().storeKey(key, keyText, this::describe), seqNum);
        prunedThrough.pruned(keyText, seqNum);
        openJournals.pruned(keyText, seqNum);
        deferred.pruned(keyText, seqNum);
        replays.pruned(keyText, seqNum);
    }

    /** The native store's position, tagged with this subtask (a {@link String}, see {@link SubtaskMarker}). */
    @Override
    public synchronized Object getRecoveryMarker() {
        return new SubtaskMarker(subtask, parallelism, open().getRecoveryMarker()).encode();
    }

    /**
     * Syncs and releases the store (the file store's directory lock, the Kafka store's clients).
     * Idempotent. Flink Agents' operator closes it while Flink cleans up after a failure too,
     * where an exception is fatal to the task manager: a failing close is logged, not thrown
     * ({@link SubtaskStores#close}).
     */
    @Override
    public synchronized void close() {
        closed = true;
        ServedStates.forget(this);
        if (restored != null) {
            restored.changingAny();
        }
        if (openJournals != null) {
            openJournals.releaseAll();
        }
        if (replays != null) {
            replays.reportRestore(false, this::describe, attempt);
        }
        if (store != null) {
            io.durablejournal.store.ActionStateStore closing = store;
            store = null;
            SubtaskStores.close(closing);
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

    /**
     * The native file or in-memory store's counters, or null for another store (or none open yet).
     * For tests; operators read {@code bytesAppended()} and {@code liveEntries()} through StoreMetrics.
     */
    synchronized StoreStats stats() {
        return store instanceof NativeActionStateStore ? ((NativeActionStateStore) store).stats() : null;
    }

    /** Where this subtask's journal lives, for messages. */
    public synchronized String describe() {
        return "the action state store of subtask " + subtask + " (" + (store != null ? store : stores) + ")";
    }

    /** The store, opened on first use as a subtask starting without a checkpoint (outside the operator). */
    private io.durablejournal.store.ActionStateStore open() {
        checkOpen();
        if (store == null) {
            try {
                opened(Objects.requireNonNull(stores.open(scope(false)), "the store factory returned null"));
            } catch (RuntimeException e) {
                throw e;
            } catch (Exception e) {
                throw cannotOpen(e);
            }
        }
        return store;
    }

    /** This subtask's scope; {@code restored} when the checkpoint holds markers of this store. */
    private SubtaskScope scope(boolean restored) {
        return new SubtaskScope(subtask, parallelism, maxParallelism, attempt, restored, jobId);
    }

    private void checkOpen() {
        if (closed) {
            throw new IllegalStateException("the action state store of subtask " + subtask + " is closed");
        }
    }

    private void opened(io.durablejournal.store.ActionStateStore opened) {
        store = opened;
        known = new KnownEntry();
        events = new EventIdentities();
        prunedThrough = new PrunedThrough();
        openJournals = new OpenJournals();
        deferred = new DeferredStates();
        replays = new ReplayCounts();
        restored = new RestoredEntries();
    }

    private IllegalStateException cannotOpen(Exception e) {
        return new IllegalStateException("cannot open the action state store of subtask " + subtask + " with " + stores + ": "
                + e.getMessage(), e);
    }

    /**
     * Names where the operator's current Flink key is read: Flink Agents' operator asks for an
     * entry by the key's text first ({@code key.toString()}), under the key it is processing, and
     * the store needs that key to place the text in the key's key group ({@link EntryAddressing#storeKey}).
     */
    synchronized void keyedBy(Supplier<Object> operatorsCurrentKey) {
        addressing().keyedBy(operatorsCurrentKey);
    }

    private EntryAddressing addressing() {
        if (addressing == null) {
            addressing = new EntryAddressing(stores.restoresAtAnyParallelism(), maxParallelism);
        }
        return addressing;
    }

    /** Where the operator's entry for the action on {@code event} lives. */
    private JournalAddress address(Object key, String keyText, long seqNum, Action action, Event event) {
        return addressing().address(key, keyText, seqNum, action.getName(), events.identityOf(keyText, seqNum, event),
                this::describe);
    }

    @Override
    public String toString() {
        return "JournalActionStateStore{subtask " + subtask + " of " + parallelism + ", attempt " + attempt + ", " + stores + "}";
    }
}
