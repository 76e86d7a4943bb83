package io.durablejournal.flinkagents;

import io.durablejournal.DurableExecutionContext;
import io.durablejournal.JournalSlot;
import io.durablejournal.SplitIdPrimitives;
import java.util.Collections;
import java.util.List;
import java.util.Objects;
import org.apache.flink.agents.api.Event;
import org.apache.flink.agents.plan.actions.Action;
import org.apache.flink.agents.runtime.actionstate.ActionState;
import org.apache.flink.agents.runtime.actionstate.CallResult;
import org.apache.flink.agents.runtime.context.RunnerContextImpl;

/**
 * Flink Agents' per-action journal ({@code RunnerContextImpl.DurableExecutionContext}) answered by
 * durable-journal's native journal: every one of its eight public methods is overridden, so what
 * Flink Agents' {@code RunnerContextImpl} asks it (the Python bridge's {@code
 * matchNextOrClearSubsequentCallResult}, {@code recordCallCompletion}, {@code appendPendingCall},
 * {@code finalizeCurrentCall}, {@code clearCallResultsFromCurrentIndexAndPersist} and {@code
 * getCurrentCallResult}) is decided by the core ({@link DurableExecutionContext}, spec §2.1), and
 * each mutation is one delta record in the subtask's store, written before the method returns;
 * Flink Agents' own copy of the state is never serialized whole.
 *
 * <p>The action's journal is the core's {@link DurableExecutionContext#resuming(List,
 * java.util.function.Supplier) resuming} context over the recorded hits the store served apart
 * from the entry (computed by the native library): it answers them with no native work, and opens
 * the core journal at the first call or method that needs it, over the entry the store holds at
 * the action's {@link JournalAddress} ({@link JournalActionStateStore#openJournal}); an action that
 * makes no durable call, or only recorded ones, never opens one. Java actions reach the same
 * journal through {@link #journal()} ({@link JournaledRunnerContext}), so Java and Python calls
 * of one action share one call index.
 *
 * <p><b>Call identity.</b> The core matches a slot by one id (spec §3, "there is no separate args
 * digest"); Flink Agents passes a function id and an args digest. A call is therefore filed under
 * {@code functionId} when the digest is empty or null (Java's {@code DurableCallable}, as Flink
 * Agents writes it) and under {@code functionId + "::" + argsDigest} otherwise: the native core
 * joins the two ({@code identity::call_id_with_digest}) on the crossing of the primitive itself
 * ({@link SplitIdPrimitives}), and {@link #getCurrentCallResult()} gets a slot's id split back by
 * the core ({@code identity::split_call_id}), so Python's comparison of both fields holds.
 *
 * <p>Used on the operator's mailbox thread, like the class it replaces.
 */
class NativeJournalContext extends RunnerContextImpl.DurableExecutionContext {

    private final JournalActionStateStore store;
    private final JournalAddress address;
    /** The state the operator was served for this action, until the journal opens. */
    private final ActionState served;
    /** When {@link #served} is a stand-in ({@link DeferredStates}), the recorded state it stands for; else null. */
    private final DeferredStates.Deferred deferred;
    /** Whether the store served {@link #served} without its call results ({@code getResuming}). */
    private final boolean split;
    /**
     * The recorded hits the store served apart from the entry, for the journal's first opening;
     * null when there are none (the entry was not split, or its journal was released since).
     */
    private List<JournalSlot> hits;
    /** The action's journal (see the class comment), or null until a method needs it. */
    private DurableExecutionContext journal;
    /** Whether {@link #journal} opened the core journal (some call or method needed more than a hit). */
    private boolean opened;
    /** The state {@link #stateToComplete} handed out last, for {@link #completeInJournal}. */
    private ActionState toComplete;

    /**
     * @param store the subtask's store, which holds the action's entry
     * @param address the action's entry in it
     * @param key, sequenceNumber, action, event, served: what Flink Agents' operator built its own
     *     context with ({@code served} is the state the store returned for the action)
     * @param hits the recorded hits the store split off the entry, or null
     * @param deferred the recorded state when {@code served} is a stand-in for it, or null
     */
    NativeJournalContext(JournalActionStateStore store, JournalAddress address, Object key, long sequenceNumber,
            Action action, Event event, ActionState served, List<JournalSlot> hits, DeferredStates.Deferred deferred) {
        super(key, sequenceNumber, action, event, served, NativeJournalContext::refuseWholeStatePersist);
        this.store = Objects.requireNonNull(store, "store");
        this.address = Objects.requireNonNull(address, "address");
        this.served = Objects.requireNonNull(served, "served");
        this.split = hits != null;
        this.hits = hits;
        this.deferred = deferred;
    }

    /** The recorded state of the entry, without its call results: the served one unless that is a stand-in. */
    private ActionState recorded() {
        return deferred == null ? served : deferred.recorded();
    }

    /**
     * The journal of this action: it answers the recorded hits, then opens the core journal over
     * the stored entry at the first call that is not one of them.
     */
    DurableExecutionContext journal() {
        if (journal == null) {
            journal = DurableExecutionContext.resuming(hits == null ? Collections.emptyList() : hits, () -> {
                DurableExecutionContext core = store.openJournal(address, this);
                opened = true;
                return core;
            });
        }
        return journal;
    }

    /** The job's default semantics of calls that declare none (null: at least once), from the store. */
    io.durablejournal.CallSemantics defaultCallSemantics() {
        return store.defaultCallSemantics();
    }

    /** The state the operator was served for this action (what the journal was created over). */
    ActionState servedState() {
        return served;
    }

    /** Whether the core journal was opened (some durable call or bridge method reached it). */
    boolean isOpen() {
        return opened;
    }

    /** The action's entry in the store. */
    JournalAddress address() {
        return address;
    }

    /**
     * Frees the core journal; a later durable call opens it again over the stored entry. The store
     * calls this once the action's completed state is put, when the entry is pruned and when it
     * closes.
     */
    void release() {
        // The hits were the entry's when it was served: a journal opened later reads the entry as it is then.
        hits = null;
        if (deferred != null) {
            // This run of the action is over: the next get of the entry starts a run again.
            store.runEnded(address, deferred);
        }
        if (journal != null) {
            journal.close();
            journal = null;
            opened = false;
        }
    }

    /**
     * The action's state for Flink Agents' operator to complete while this journal is open: the
     * recorded state it was served (decoded now when it was served a stand-in), without call
     * results. The operator reads the state there only to add memory updates and output events
     * and mark it completed ({@code maybePersistTaskResult}), which drops the call results;
     * reading them back from the store would cost a whole-state serialization per action.
     */
    ActionState stateToComplete() {
        ActionState recorded = recorded();
        toComplete = new ActionState(recorded.getTaskEvent(), new java.util.ArrayList<>(recorded.getSensoryMemoryUpdates()),
                new java.util.ArrayList<>(recorded.getShortTermMemoryUpdates()), new java.util.ArrayList<>(recorded.getOutputEvents()),
                null, false);
        return toComplete;
    }

    /**
     * Marks the action completed in the open journal when {@code completed} is the state {@link
     * #stateToComplete} handed out, marked completed with nothing added: its task event, memory
     * updates and output events are then the stored entry's own, so the journal's completion
     * record (the calls dropped, the entry completed) is exactly what the whole state would write.
     *
     * @return false, with nothing written, for any other state (the caller puts it whole)
     */
    boolean completeInJournal(ActionState completed) {
        if (!opened || completed != toComplete || !completed.isCompleted() || !completed.getCallResults().isEmpty()) {
            return false;
        }
        ActionState recorded = recorded();
        if (completed.getTaskEvent() != recorded.getTaskEvent()
                || !sameItems(completed.getSensoryMemoryUpdates(), recorded.getSensoryMemoryUpdates())
                || !sameItems(completed.getShortTermMemoryUpdates(), recorded.getShortTermMemoryUpdates())
                || !sameItems(completed.getOutputEvents(), recorded.getOutputEvents())) {
            return false;
        }
        journal.markCompleted();
        return true;
    }

    /** Whether both lists hold the very same objects in the same order. */
    private static boolean sameItems(List<?> a, List<?> b) {
        if (a.size() != b.size()) {
            return false;
        }
        for (int i = 0; i < a.size(); i++) {
            if (a.get(i) != b.get(i)) {
                return false;
            }
        }
        return true;
    }

    @Override
    public int getCurrentCallIndex() {
        return journal == null ? 0 : journal.getCurrentCallIndex();
    }

    /**
     * The action's state as the journal has it now, in Flink Agents' classes; before the core
     * journal is opened, the very state the store served (the adapter recognizes its contexts by
     * it), unless the store served it without its call results: the journal is opened then, so the
     * state returned holds them.
     */
    @Override
    public ActionState getActionState() {
        return !opened && !split ? served : ActionStates.fromJson(io.durablejournal.ActionStateSerde.serialize(journal().getActionState()));
    }

    /** The journal's primitives that take a call's function id and args digest (the core joins them). */
    private SplitIdPrimitives primitives() {
        return journal().splitIdPrimitives();
    }

    @Override
    public CallResult getCurrentCallResult() {
        return callResultOf(primitives().getCurrentCallResultFields());
    }

    /**
     * A slot read split ({@code [functionId, argsDigest, status, result, exception]}, {@link
     * SplitIdPrimitives}) as Flink Agents' CallResult; null stays null.
     */
    private static CallResult callResultOf(Object[] fields) {
        if (fields == null) {
            return null;
        }
        String functionId = (String) fields[0];
        String argsDigest = (String) fields[1];
        if ("PENDING".equals(fields[2])) {
            return CallResult.pending(functionId, argsDigest);
        }
        return new CallResult(functionId, argsDigest, (byte[]) fields[3], (byte[]) fields[4]);
    }

    @Override
    public Object[] matchNextOrClearSubsequentCallResult(String functionId, String argsDigest) {
        return primitives().matchNextOrClearSubsequentCallResult(functionId, argsDigest);
    }

    @Override
    public void recordCallCompletion(String functionId, String argsDigest, byte[] resultPayload, byte[] exceptionPayload) {
        primitives().recordCallCompletion(functionId, argsDigest, resultPayload, exceptionPayload);
    }

    @Override
    public void appendPendingCall(String functionId, String argsDigest) {
        primitives().appendPendingCall(functionId, argsDigest);
    }

    @Override
    public void finalizeCurrentCall(String functionId, String argsDigest, byte[] resultPayload, byte[] exceptionPayload) {
        primitives().finalizeCurrentCall(functionId, argsDigest, resultPayload, exceptionPayload);
    }

    @Override
    public void clearCallResultsFromCurrentIndexAndPersist() {
        journal().clearCallResultsFromCurrentIndexAndPersist();
    }

    /**
     * For the Python bridge ({@code durable_journal.flink_agents}): the call about to be made at
     * the index, {@code [callId, index, idempotencyKey, jobHasDefault]}, for its body to read as
     * {@code durable_journal.current_call()}; {@code jobHasDefault}: whether the job has a default
     * semantics for calls that declare none ({@link DurableAgents#connectToAgent(
     * org.apache.flink.streaming.api.datastream.KeyedStream, org.apache.flink.agents.plan.AgentPlan,
     * io.durablejournal.flink.ActionStateStoreFactory, io.durablejournal.CallSemantics)}), so that
     * the call goes through {@link #beginCallWithSemantics} (one crossing per call all the same).
     */
    public Object[] currentCall(String functionId, String argsDigest) {
        int index = journal().getCurrentCallIndex();
        String[] idAndKey = primitives().callIdAndIdempotencyKeyAt(index, functionId, argsDigest);
        return new Object[] {idAndKey[0], index, idAndKey[1], defaultCallSemantics() != null};
    }

    /**
     * For the Python bridge: begins an at-most-once call without a reconciler ({@link
     * DurableExecutionContext#beginAtMostOnceCall}). Null: run its body, then {@link
     * #finalizeCurrentCall}. {@code [true, result, exception]}: its recorded outcome. {@code [false,
     * message, callId, position, idempotencyKey, key, sequenceNumber, actionName]}: an earlier run
     * was interrupted during it, so it does not run.
     */
    public Object[] beginAtMostOnceCall(String functionId, String argsDigest) {
        return beginCallWithSemantics(functionId, argsDigest, io.durablejournal.CallSemantics.AT_MOST_ONCE.name());
    }

    /**
     * For the Python bridge: begins a call without a reconciler that declares {@code declared}
     * ({@code "AT_MOST_ONCE"}, {@code "AT_LEAST_ONCE"}, or null: nothing) under the job's default;
     * the native journal decides ({@link DurableExecutionContext#beginCallWithSemantics}). Null: run
     * its body, then {@link #recordCallCompletion}. Otherwise as {@link #beginAtMostOnceCall}'s answers.
     *
     * @throws IllegalArgumentException for a {@code declared} that names no semantics
     */
    public Object[] beginCallWithSemantics(String functionId, String argsDigest, String declared) {
        io.durablejournal.CallSemantics semantics = declared == null ? null : io.durablejournal.CallSemantics.valueOf(declared);
        try {
            return primitives().beginCallWithSemantics(functionId, argsDigest, semantics, defaultCallSemantics());
        } catch (io.durablejournal.CallInterruptedException e) {
            return new Object[] {Boolean.FALSE, e.getMessage(), e.getCallId(), e.getPosition(), e.getIdempotencyKey(), e.getKey(),
                e.getSequenceNumber(), e.getActionName()};
        }
    }

    // apache/flink-agents#926's six journal methods, declared ahead of it with its signatures: a
    // Flink Agents that adds them to DurableExecutionContext (its durableExecuteAllAsync and its
    // Python bridge call them) reaches these overrides, and so the native journal, not its own.
    // No supported version has them yet; the guard list (FlinkAgentsCompatibility) takes a
    // version that does only once its shape lists them. A PENDING slot stays ours there too: the
    // call's reconciler decides it, where #926 makes it a miss that runs again.

    /** The slot at {@code index}, or null past the last (#926). */
    public CallResult getCallResultAt(int index) {
        return callResultOf(primitives().getCallResultFieldsAt(index));
    }

    /** Appends a PENDING slot per call, in order, in one record (#926's batch of async calls). */
    public void reservePendingBatch(List<String> functionIds, List<String> argsDigests) {
        primitives().reservePendingBatch(functionIds, argsDigests);
    }

    /** Completes the PENDING slot at {@code index}, which must be this call's (#926). */
    public void finalizeCallAt(int index, String functionId, String argsDigest, byte[] resultPayload, byte[] exceptionPayload) {
        primitives().finalizeCallAt(index, functionId, argsDigest, resultPayload, exceptionPayload);
    }

    /** Moves the call index past {@code count} slots a batch answered (#926). */
    public void advanceCallIndexBy(int count) {
        journal().advanceCallIndexBy(count);
    }

    /** Drops the slots from {@code index} on, persisted (#926). */
    public void clearCallResultsFromAndPersist(int index) {
        journal().clearCallResultsFromAndPersist(index);
    }

    /**
     * Drops the slots from {@code index} on (#926 leaves persisting to a later call): the native
     * journal persists each change as it makes it, so this is {@link #clearCallResultsFromAndPersist}.
     */
    public void clearCallResultsFrom(int index) {
        clearCallResultsFromAndPersist(index);
    }

    /**
     * Flink Agents' context persists its whole state through its persister; this one writes deltas
     * through the core journal, so nothing may reach the persister.
     */
    private static void refuseWholeStatePersist(Object key, long sequenceNumber, Action action, Event event, ActionState state) {
        throw new IllegalStateException("the native journal persists every call itself; Flink Agents' DurableExecutionContext"
                + " reached its persister for action '" + action.getName() + "': this Flink Agents version calls a method"
                + " of DurableExecutionContext that durable-journal does not override");
    }

    @Override
    public String toString() {
        return "NativeJournalContext{" + address + (opened ? "" : ", not opened") + "}";
    }
}
