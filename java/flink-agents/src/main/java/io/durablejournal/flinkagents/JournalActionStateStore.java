package io.durablejournal.flinkagents;

import io.durablejournal.JournalSlot;
import io.durablejournal.flink.ActionStateStoreFactory;
import io.durablejournal.flink.SubtaskScope;
import io.durablejournal.flink.SubtaskStores;
import io.durablejournal.store.EventIdentity;
import io.durablejournal.store.GroupedKey;
import io.durablejournal.store.NativeActionStateStore;
import io.durablejournal.store.ResumingEntry;
import io.durablejournal.store.StoreStats;
import java.io.Serializable;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.function.Supplier;
import org.apache.flink.agents.api.Event;
import org.apache.flink.agents.plan.actions.Action;
import org.apache.flink.agents.runtime.actionstate.ActionState;
import org.apache.flink.agents.runtime.actionstate.ActionStateStore;
import org.apache.flink.agents.runtime.context.RunnerContextImpl;
import org.apache.flink.api.common.JobID;
import org.apache.flink.runtime.execution.SuppressRestartsException;
import org.apache.flink.runtime.state.KeyGroupRangeAssignment;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Flink Agents' {@link ActionStateStore} SPI over durable-journal's stores: one per subtask,
 * opened by any {@link ActionStateStoreFactory} (the file store, {@link
 * ActionStateStoreFactory#fileStores}, or the Kafka store). It is what {@link DurableAgents}
 * hands each subtask of Flink Agents' {@code ActionExecutionOperator}.
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
 *       is refused with an {@link IllegalArgumentException}. A store that restores at any
 *       parallelism (the Kafka store, which groups entries by Flink key group) is given the
 *       text in the Flink key's own key group ({@link GroupedKey}), so the subtask that owns the
 *       key owns its journals whatever the key's type.</li>
 *   <li><b>action</b>: its name, unique in the agent plan (Flink Agents' Kafka store uses the
 *       action's identity hash code, which differs in every JVM).</li>
 *   <li><b>event</b>: the input record's root occurrence (key and sequence number) for the input
 *       event, the Flink Agents event id for an event an action emitted ({@link EventIdentities}):
 *       stable across restarts and distinct for equal events.</li>
 * </ul>
 *
 * <p>The store is {@link Serializable} so that it can sit in an operator factory; the
 * durable-journal store is opened lazily in the subtask that uses it (each subtask and each restart runs its own
 * copy) and is never serialized. Calls come from the subtask's mailbox thread; they are
 * synchronized all the same.
 */
public final class JournalActionStateStore implements ActionStateStore, Serializable {
    private static final long serialVersionUID = 1L;
    private static final Logger LOG = LoggerFactory.getLogger(JournalActionStateStore.class);

    private final ActionStateStoreFactory stores;
    private final int subtask;
    private final int parallelism;
    private final int maxParallelism;
    private final int attempt;
    private final JobID jobId;
    /** The semantics of the durable calls of its actions that declare none; null: at least once. */
    private io.durablejournal.CallSemantics defaultCallSemantics;

    private transient io.durablejournal.store.ActionStateStore store;
    /** The operator's current Flink key (null outside a keyed call), or null: see {@link #keyedBy}. */
    private transient Supplier<Object> currentKey;
    private transient boolean warnedOfKeyGroups;
    private transient boolean closed;
    private transient EventIdentities events;
    /** Per key text, the sequence number this store has pruned through (see {@link #pruneState}). */
    private transient Map<String, Long> prunedThrough;
    private transient ReplayCounts replays;
    /** Whether this subtask's store was restored from a checkpoint's markers and its INFO line is still due. */
    private transient boolean restoreToReport;
    /** The native journals opened and not yet released, by entry. */
    private transient Map<JournalAddress, NativeJournalContext> openJournals;
    /** The entry the store can answer a {@code get} of without the native store, if any. */
    private transient KnownEntry known;

    /**
     * The state the store served last on each thread (the operator's mailbox thread), for {@link
     * #installJournal}. Replaced at every {@code get}, cleared when the store closes.
     */
    private static final ThreadLocal<Served> SERVED = new ThreadLocal<>();

    /** One state the store served, with where it lives and what the operator asked with. */
    private static final class Served {
        final JournalActionStateStore store;
        final JournalAddress address;
        final Object key;
        final Action action;
        final Event event;
        final ActionState state;
        /** The entry's recorded hits when the store split the call slots off {@link #state}, else null (they are in it). */
        final List<JournalSlot> hits;

        Served(JournalActionStateStore store, JournalAddress address, Object key, Action action, Event event, ActionState state,
                List<JournalSlot> hits) {
            this.store = store;
            this.address = address;
            this.key = key;
            this.action = action;
            this.event = event;
            this.state = state;
            this.hits = hits;
        }
    }

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
    public synchronized void put(Object key, long seqNum, Action action, Event event, ActionState state) {
        String keyText = keyText(key);
        io.durablejournal.store.ActionStateStore opened = open();
        known.forget();
        EventIdentity eventIdentity = events.identityOf(keyText, seqNum, event);
        JournalAddress address = new JournalAddress(keyText, storeKey(key, keyText), seqNum, action.getName(), eventIdentity);
        NativeJournalContext journal = state.isCompleted() ? openJournals.get(address) : null;
        if (journal == null || !journal.completeInJournal(state)) {
            opened.putJson(address.storeKey, seqNum, action.getName(), eventIdentity, ActionStates.toJson(state));
        }
        replays.written(keyText, seqNum, action.getName(), eventIdentity);
        Long pruned = prunedThrough.get(keyText);
        if (pruned != null && pruned >= seqNum) {
            prunedThrough.remove(keyText);
        }
        if (state.isCompleted()) {
            // The action is done: its journal will not be written again.
            if (journal != null) {
                openJournals.remove(address);
                journal.release();
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
        String keyText = keyText(key);
        io.durablejournal.store.ActionStateStore opened = open();
        EventIdentity eventIdentity = events.identityOf(keyText, seqNum, event);
        JournalAddress address = new JournalAddress(keyText, storeKey(key, keyText), seqNum, action.getName(), eventIdentity);
        NativeJournalContext journaling = openJournals.get(address);
        if (journaling != null && journaling.isOpen()) {
            // The action's native journal holds its calls; the operator completes the state.
            known.forget();
            ActionState inProgress = journaling.stateToComplete();
            SERVED.set(new Served(this, address, key, action, event, inProgress, null));
            return inProgress;
        }
        if (known.knows(address)) {
            // The store has not changed since it answered or created this entry (see KnownEntry).
            ActionState state = known.state();
            if (state != null) {
                SERVED.set(new Served(this, address, key, action, event, state, null));
            }
            return state;
        }
        if (action.getExec() instanceof JournaledJavaFunction) {
            return getForNativeJournal(opened, address, key, action, event);
        }
        byte[] found = opened.getJson(address.storeKey, seqNum, action.getName(), eventIdentity);
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
        SERVED.set(new Served(this, address, key, action, event, state, null));
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
        ResumingEntry found = opened.getResuming(address.storeKey, address.seqNum, address.actionName, address.event);
        if (found == null) {
            known.missing(address);
            return null;
        }
        known.forget();
        ActionState state = ActionStates.fromJson(found.stateJson());
        if (state.isCompleted()) {
            events.reemitted(found.stateJson(), state.getOutputEvents());
        }
        int calls = found.isSplit() ? found.callCount() : state.getCallResults().size();
        replays.found(address.keyText, address.seqNum, address.actionName, address.event, state.isCompleted(), calls);
        SERVED.set(new Served(this, address, key, action, event, state, found.isSplit() ? found.hits() : null));
        return state;
    }

    /**
     * The native journal of the action whose state this store served last on the calling thread,
     * installed on Flink Agents' runner context in place of Flink Agents' own journal; the context
     * already installed when it is one. Null when the operator runs without a durable store (no
     * journal is installed then). Flink Agents' operator builds its journal over the state the
     * store has just served ({@code processActionTaskForKey}); the adapter recognizes that state
     * (the same object) and refuses to guess when it is another one.
     *
     * @throws IllegalStateException when the installed journal is not over the state this store
     *     served last on this thread
     */
    public static NativeJournalContext installJournal(RunnerContextImpl context) {
        Objects.requireNonNull(context, "context");
        RunnerContextImpl.DurableExecutionContext installed = context.getDurableExecutionContext();
        if (installed == null || installed instanceof NativeJournalContext) {
            return (NativeJournalContext) installed;
        }
        Served served = SERVED.get();
        if (served == null || served.state != installed.getActionState()) {
            throw new IllegalStateException("Flink Agents' journal of action '" + context.getActionName() + "' is not over"
                    + " the state the durable-journal store served last on this thread, so the adapter cannot tell which"
                    + " entry of the store it belongs to: is the operator's store a JournalActionStateStore, and does this"
                    + " Flink Agents version (supported: " + FlinkAgentsCompatibility.SUPPORTED_VERSIONS + ") build the"
                    + " journal right after the store's get?");
        }
        NativeJournalContext journal = served.store.journalContext(served);
        context.setDurableExecutionContext(journal);
        return journal;
    }

    /** A native journal context for the action the store served. */
    private synchronized NativeJournalContext journalContext(Served served) {
        return new NativeJournalContext(this, served.address, served.key, served.address.seqNum, served.action, served.event,
                served.state, served.hits);
    }

    /**
     * Opens the core journal of the entry at {@code address} (Flink Agents' operator put it before
     * the action ran); the store releases it when the action's completed state is put, when the
     * entry is pruned, or when the store closes.
     */
    synchronized io.durablejournal.DurableExecutionContext openJournal(JournalAddress address, NativeJournalContext owner) {
        io.durablejournal.store.ActionStateStore opened = open();
        known.forget();
        io.durablejournal.DurableExecutionContext journal = opened.openContext(address.storeKey, address.seqNum,
                address.actionName, address.event, null);
        NativeJournalContext previous = openJournals.put(address, owner);
        if (previous != null && previous != owner) {
            previous.release();
        }
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
        List<byte[]> markers = markersToRestore(recoveryMarkers);
        try {
            opened(SubtaskStores.open(stores, scope(!recoveryMarkers.isEmpty()), markers));
            restoreToReport = !recoveryMarkers.isEmpty();
        } catch (RuntimeException e) {
            throw e;
        } catch (Exception e) {
            throw cannotOpen(e);
        }
    }

    /**
     * Logs the restore's one INFO line ({@link ReplayCounts#restoreSummary}) at the first checkpoint
     * completed after the restore by which the store gave something back (the inputs before that
     * checkpoint's barrier have been looked up), or when the store closes first. Nothing for a
     * subtask that started without a checkpoint, nothing per call.
     */
    synchronized void checkpointCompleted() {
        if (restoreToReport && replays != null && replays.any()) {
            reportRestore();
        }
    }

    private void reportRestore() {
        restoreToReport = false;
        LOG.info(replays.restoreSummary(describe(), attempt));
    }

    /** The native markers the store restores from; refuses markers it cannot restore from. */
    private List<byte[]> markersToRestore(List<Object> recoveryMarkers) {
        List<SubtaskMarker> decoded = new ArrayList<>();
        List<Integer> parallelisms = new ArrayList<>();
        for (Object marker : recoveryMarkers) {
            if (!SubtaskMarker.isOurs(marker)) {
                throw refuse("the checkpoint holds a recovery marker of another action state store (" + marker
                        + "); its journals are not in " + describe());
            }
            SubtaskMarker subtaskMarker = SubtaskMarker.decode((String) marker);
            decoded.add(subtaskMarker);
            parallelisms.add(subtaskMarker.parallelism);
        }
        SubtaskStores.checkRestoredParallelism(stores, parallelisms, parallelism);
        boolean everySubtasks = stores.restoresAtAnyParallelism();
        List<byte[]> markers = new ArrayList<>();
        for (SubtaskMarker marker : decoded) {
            if (everySubtasks || marker.subtask == subtask) {
                markers.add(marker.storeMarker);
            }
        }
        if (!recoveryMarkers.isEmpty() && markers.isEmpty()) {
            throw refuse("the checkpoint has no recovery marker of subtask " + subtask + " among its "
                    + recoveryMarkers.size());
        }
        return markers;
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
        known.forget();
        Long pruned = prunedThrough.get(keyText);
        if (pruned != null && pruned >= seqNum) {
            return;
        }
        opened.pruneState(storeKey(key, keyText), seqNum);
        prunedThrough.put(keyText, seqNum);
        openJournals.entrySet().removeIf(entry -> {
            boolean prunedEntry = entry.getKey().keyText.equals(keyText) && entry.getKey().seqNum <= seqNum;
            if (prunedEntry) {
                entry.getValue().release();
            }
            return prunedEntry;
        });
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
        Served served = SERVED.get();
        if (served != null && served.store == this) {
            SERVED.remove();
        }
        if (openJournals != null) {
            openJournals.values().forEach(NativeJournalContext::release);
            openJournals.clear();
        }
        if (restoreToReport) {
            reportRestore();
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
        prunedThrough = new HashMap<>();
        openJournals = new HashMap<>();
        replays = new ReplayCounts();
    }

    private IllegalStateException cannotOpen(Exception e) {
        return new IllegalStateException("cannot open the action state store of subtask " + subtask + " with " + stores + ": "
                + e.getMessage(), e);
    }

    /**
     * Names where the operator's current Flink key is read: Flink Agents' operator asks for an
     * entry by the key's text first ({@code key.toString()}), under the key it is processing, and
     * the store needs that key to place the text in the key's key group ({@link #storeKey}).
     */
    synchronized void keyedBy(Supplier<Object> operatorsCurrentKey) {
        this.currentKey = Objects.requireNonNull(operatorsCurrentKey, "operatorsCurrentKey");
    }

    /**
     * What the store's calls are given as the key: its text, in the Flink key's own key group when
     * the store restores at any parallelism (the Kafka store groups entries by key group, and
     * would otherwise group them by the text's, which is Flink's only for a {@code String} key).
     * A {@code String} the operator passes for a key of another type (its text) is that key's.
     */
    private Object storeKey(Object key, String keyText) {
        if (!stores.restoresAtAnyParallelism()) {
            return keyText;
        }
        if (currentKey == null) {
            warnOfKeyGroupsOnce(key);
            return keyText;
        }
        Object flinkKey = key instanceof String ? flinkKeyOfText(keyText) : key;
        if (flinkKey instanceof String) {
            return keyText;
        }
        return GroupedKey.of(keyText, KeyGroupRangeAssignment.assignToKeyGroup(flinkKey, maxParallelism));
    }

    /**
     * Without the operator's current key (a store used by another operator than {@link
     * DurableAgents}'), a key's text cannot be told from a {@code String} key: the entries stay in
     * the key group of the text, as before {@link GroupedKey}, and a key that is not a {@code
     * String} is read from a key group its subtask may not own.
     */
    private void warnOfKeyGroupsOnce(Object key) {
        if (!warnedOfKeyGroups && !(key instanceof String)) {
            warnedOfKeyGroups = true;
            LOG.warn("{}: the Flink keys are {}, not Strings, and the store does not know the operator's current key (it is"
                    + " not under DurableAgents' operator): their journals are grouped by the key groups of their text, not"
                    + " Flink's, and the subtask reads such key groups from the store on first use", describe(),
                    key.getClass().getName());
        }
    }

    /** The operator's current key when {@code keyText} is its text, else the text (a {@code String} key). */
    private Object flinkKeyOfText(String keyText) {
        Object current = currentKey.get();
        if (current == null || current instanceof String || !keyText.equals(current.toString())) {
            return keyText;
        }
        return current;
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

    /** Fails the job for good, saying why in the task's log too (WARN: a refused restore, not a crash of ours). */
    private SuppressRestartsException refuse(String reason) {
        LOG.warn("{} refuses to restore: {}", describe(), reason);
        return new SuppressRestartsException(new IllegalStateException(reason));
    }

    @Override
    public String toString() {
        return "JournalActionStateStore{subtask " + subtask + " of " + parallelism + ", attempt " + attempt + ", " + stores + "}";
    }
}
