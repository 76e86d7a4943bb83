package io.durablejournal;

import io.durablejournal.internal.CalledFromNative;
import io.durablejournal.internal.NativeHandle;
import io.durablejournal.internal.Utf8;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.function.Supplier;
import java.util.Objects;

/**
 * The journal of one action execution: its ActionState and a call index that starts at 0 on
 * every (re)start and is never persisted. The state machine and the replay rule live in the native
 * library. This class is the contract's façade: it checks arguments and marshals each primitive to the
 * native journal. Around that, package-private helpers do one job each: {@link LazyJournal} opens
 * the journal on first need, and until then {@link RecordedReplay} answers the recorded hits the
 * library found (below); {@link RunnerCalls} takes the journal steps of {@link RunnerContextImpl}'s
 * calls and batches; {@link SplitIdPrimitives} crosses the primitives that take a call's id
 * (given whole, or in two parts that the native core joins); {@link CallGuard} refuses nested and concurrent
 * calls, {@link CallCounters} counts the calls and {@link DivergenceLog} logs the divergences the
 * journal reports.
 *
 * <p>Recovery is the path this library exists for, so a context created over an ActionState
 * opens its native journal lazily: while every durable call is a recorded hit the recorded
 * outcome is answered with no native work at all. The hits are the leading slots the native
 * library said replay as recorded (the core's one replay rule, in
 * rust/model.rs), found when it read the state ({@link ActionStateSerde#deserialize}, which
 * every store's {@code get} goes through) or when a store served the entry ({@link
 * #resuming(List, Supplier)}); this class only asks whether the next hit's id is the call's id.
 * A state built in Java has no hits: its journal decides every call. The first call or method
 * that needs more opens the journal over the state, with its index past the hits. The context
 * works on a copy of the state taken when it is created (slots are immutable, payloads
 * included), and every {@link ActionState} is one the journal accepts (its setters check each
 * body), so a state is never refused after some of its hits were served.
 *
 * <p><b>One thread at a time.</b> A context belongs to one action execution, and its durable
 * calls are made one after the other by the thread that runs the action (Flink Agents' runtime
 * allows only the task's mailbox thread). The context is safe to share: its methods take the
 * journal in turn, and {@link #close()} from another thread waits for a call in flight. But a
 * durable call started while another one's body runs is refused with an {@link
 * IllegalStateException} that says which it is: <i>nested</i> (started on the thread running that
 * body, or on an executor thread running it for {@code durableExecuteAsync}/{@code
 * durableExecuteAll}) or <i>concurrent</i> (started on another thread). Neither could be replayed:
 * the journal matches calls by position in the order they complete.
 *
 * <p>{@link #close()} is idempotent and any call after it throws {@link IllegalStateException}.
 * The {@link ActionStatePersister} runs inside the call whose mutation it persists, so it must
 * not call back into this context (that is an {@link IllegalStateException}); it may call {@link
 * #close()}, which then takes effect when that call returns. A context dropped without {@code
 * close()} is freed once it is garbage collected; close it anyway.
 */
public final class DurableExecutionContext implements AutoCloseable {
    private final ActionStatePersister persister;
    /** The native journal, opened on first need; the recorded hits are answered until then. */
    private final LazyJournal lazyJournal;
    private final CallCounters counters = new CallCounters();
    private final DivergenceLog divergences = new DivergenceLog();
    private final CallGuard guard = new CallGuard();
    private final RunnerCalls runnerCalls;
    /** The primitives' crossings, for ids given whole (here) or in two parts ({@link #splitIdPrimitives()}). */
    private final SplitIdPrimitives primitives = new SplitIdPrimitives(this, divergences);

    /**
     * @param state the record to resume from (a new {@code ActionState()} for a first run); the
     *     context copies it, so later changes to it do not reach the journal
     * @param persister called once per persisted mutation, or null to persist nothing
     */
    public DurableExecutionContext(ActionState state, ActionStatePersister persister) {
        this(RecordedReplay.over(state), persister, null);
    }

    private DurableExecutionContext(RecordedReplay recorded, ActionStatePersister persister,
            Supplier<? extends DurableExecutionContext> opener) {
        this.persister = persister;
        this.lazyJournal = LazyJournal.over(this, recorded, opener);
        this.runnerCalls = new RunnerCalls(lazyJournal, guard, counters, divergences, callback());
    }

    /**
     * A context that resumes a stored action: it answers the recorded hits of {@code recorded}
     * from it, as a context created over an ActionState does, and takes its journal from {@code
     * journalOpener} only at the first call or method that needs one, with the index moved past
     * those hits. For a caller that has just read the entry with {@link
     * io.durablejournal.store.ActionStateStore#get}: {@code () -> store.openContext(key, seq,
     * action, event, null)} opens the store's journal over that same entry, and every mutation
     * persists into the store as it would through that context. An action whose calls are all
     * hits then crosses into the native library for none of them.
     *
     * @param recorded the entry as the store holds it (copied: later changes do not reach the journal)
     * @param journalOpener opens a journal over that same entry; called at most once
     */
    public static DurableExecutionContext resuming(ActionState recorded, Supplier<? extends DurableExecutionContext> journalOpener) {
        Objects.requireNonNull(journalOpener, "journalOpener");
        return new DurableExecutionContext(RecordedReplay.over(recorded), null, journalOpener);
    }

    /**
     * A context that resumes a stored action from the recorded hits a store served apart from the
     * entry ({@link io.durablejournal.store.internal.ResumingEntry#hits()}, computed by the native
     * library): it answers them as {@link #resuming(ActionState, Supplier)} does, and takes its
     * journal from {@code journalOpener} at the first call or method that needs one (its state
     * among them: the hits are not the whole entry), with the index moved past the hits answered.
     *
     * @param hits the entry's leading recorded hits, in call order
     * @param journalOpener opens a journal over that same entry; called at most once
     */
    public static DurableExecutionContext resuming(List<JournalSlot> hits, Supplier<? extends DurableExecutionContext> journalOpener) {
        Objects.requireNonNull(journalOpener, "journalOpener");
        return new DurableExecutionContext(RecordedReplay.ofHits(hits), null, journalOpener);
    }

    /**
     * Owns a journal the native library just created: a native store's {@code openContext} calls
     * this through JNI ({@code rust/jni/store.rs}), so no raw handle ever reaches Java code.
     */
    @CalledFromNative
    @SuppressWarnings("unused")
    private DurableExecutionContext(long nativeJournal) {
        this.persister = null;
        this.lazyJournal = LazyJournal.open(this, nativeJournal);
        this.runnerCalls = new RunnerCalls(lazyJournal, guard, counters, divergences, null);
    }

    /** The native journal, opened over the recorded state on first use. */
    NativeHandle journal() {
        return lazyJournal.get();
    }

    /**
     * The primitives of this context for a caller that names each call by a function id and an
     * args digest (Flink Agents' bridge): the native core joins the two into the call's id on the
     * primitive's own crossing, and splits a slot's id back ({@link SplitIdPrimitives}).
     */
    public SplitIdPrimitives splitIdPrimitives() {
        return primitives;
    }

    /** The journal steps of the durable calls and batches {@link RunnerContextImpl} makes on this context. */
    RunnerCalls runnerCalls() {
        return runnerCalls;
    }

    /**
     * Sets what the journal does from now on when a re-run makes a different call at a recorded
     * position ({@link DivergencePolicy}; {@link DivergencePolicy#WARN} until set). Set it before
     * the action runs; a context answering recorded hits from its state hands it to the journal
     * when that opens.
     */
    public void setDivergencePolicy(DivergencePolicy policy) {
        Objects.requireNonNull(policy, "policy");
        lazyJournal.setDivergencePolicy(policy);
    }

    public DivergencePolicy getDivergencePolicy() {
        return lazyJournal.divergencePolicy();
    }

    /**
     * How many durable calls diverged from the journal under {@link DivergencePolicy#WARN} (the
     * journal was cut at their position and they ran) since this context was created; each was
     * logged as a warning.
     */
    public int getDivergedCallCount() {
        return divergences.count();
    }

    public int getCurrentCallIndex() {
        return lazyJournal.currentCallIndex();
    }

    /** Number of slots in the journal. */
    public int size() {
        return journal().applyAsInt(JournalJni::size);
    }

    /** {@code [String functionId, String status, byte[] result, byte[] exception]} at the index, or null. */
    public Object[] getCurrentCallResultFields() {
        JournalSlot slot = journal().apply(h -> JournalJni.currentSlot(h, false));
        return slot == null ? null : slot.toFields();
    }

    /** The same 4-tuple for absolute slot {@code index}, or null when out of range. */
    public Object[] getCallResultFieldsAt(int index) {
        JournalSlot slot = slotAt(index);
        return slot == null ? null : slot.toFields();
    }

    /** Absolute slot {@code index}, or null when out of range. */
    JournalSlot slotAt(int index) {
        SplitIdPrimitives.checkIndex(index);
        return journal().apply(h -> JournalJni.slotAt(h, index, false));
    }

    /**
     * A snapshot of the journal as it stands. Before the journal opened that is the state the
     * context was created over (recorded hits change nothing), so it is not opened for this.
     */
    public ActionState getActionState() {
        return lazyJournal.snapshot();
    }

    /**
     * Hit: {@code [true, resultPayload, exceptionPayload]} and the index moves on. Miss: null (a
     * different id at the index also cuts the journal there, in memory only, as the {@link
     * #setDivergencePolicy divergence policy} says: under {@code FAIL} it is a {@link
     * NonDeterministicReplayException} instead).
     */
    public Object[] matchNextOrClearSubsequentCallResult(String functionId) {
        return matchNextOrClearSubsequentCallResult(functionId, null);
    }

    /**
     * As {@link #matchNextOrClearSubsequentCallResult(String)} for a caller that has the call's args
     * digest (Flink Agents' primitives pass one): matching stays on the id alone, the digest only
     * goes into a divergence report. (A caller whose digest is part of the call's id uses {@link
     * #splitIdPrimitives()}.)
     *
     * @param argsDigest the new call's args digest, or null
     */
    public Object[] matchNextOrClearSubsequentCallResult(String functionId, String argsDigest) {
        byte[] digest = argsDigest == null ? null : Utf8.encode(argsDigest, "argsDigest");
        return primitives.matchNext(SplitIdPrimitives.id(functionId), digest, false);
    }

    /**
     * Begins an {@link CallSemantics#AT_MOST_ONCE at-most-once} call without a reconciler at the
     * index, for a runtime that runs durable calls through the primitives: null when its body is
     * to run (its PENDING slot is persisted; finalize it with {@link #finalizeCurrentCall}), {@code
     * [true, resultPayload, exceptionPayload]} when its outcome is recorded (the index moved past
     * it, as a {@link #matchNextOrClearSubsequentCallResult} hit).
     *
     * @throws CallInterruptedException when an earlier run left the call's slot PENDING
     */
    public Object[] beginAtMostOnceCall(String functionId) {
        return beginCallWithSemantics(functionId, CallSemantics.AT_MOST_ONCE, null);
    }

    /**
     * {@link #beginAtMostOnceCall} for a call without a reconciler that declares {@code declared}
     * (null: nothing) under a job default ({@code jobDefault}, null: none); the journal decides
     * which applies. Null: run its body, then record its outcome with {@link #recordCallCompletion}
     * (which replaces the PENDING slot an at-most-once call has by then).
     *
     * @throws CallInterruptedException when the call is at most once and an earlier run left its slot PENDING
     */
    public Object[] beginCallWithSemantics(String functionId, CallSemantics declared, CallSemantics jobDefault) {
        return primitives.beginCallWithSemantics(SplitIdPrimitives.id(functionId), null, declared, jobDefault);
    }

    public void recordCallCompletion(String functionId, byte[] resultPayload, byte[] exceptionPayload) {
        primitives.recordCallCompletion(SplitIdPrimitives.id(functionId), null, resultPayload, exceptionPayload);
    }

    public void appendPendingCall(String functionId) {
        primitives.appendPendingCall(SplitIdPrimitives.id(functionId), null);
    }

    public void finalizeCurrentCall(String functionId, byte[] resultPayload, byte[] exceptionPayload) {
        primitives.finalizeCurrentCall(SplitIdPrimitives.id(functionId), null, resultPayload, exceptionPayload);
    }

    public void clearCallResultsFromCurrentIndexAndPersist() {
        journal().accept(h -> JournalJni.clearCallResultsFromCurrentIndexAndPersist(h, callback()));
    }

    public void reservePendingBatch(List<String> functionIds) {
        Objects.requireNonNull(functionIds, "functionIds");
        primitives.reservePendingBatch(RunnerCalls.encodeIds(functionIds), null);
    }

    public void finalizeCallAt(int index, String functionId, byte[] resultPayload, byte[] exceptionPayload) {
        SplitIdPrimitives.checkIndex(index);
        primitives.finalizeCallAt(index, SplitIdPrimitives.id(functionId), null, resultPayload, exceptionPayload);
    }

    public void advanceCallIndexBy(int n) {
        if (n < 0) {
            throw new IllegalArgumentException("advance count must not be negative: " + n);
        }
        journal().accept(h -> JournalJni.advanceCallIndexBy(h, n));
    }

    public void clearCallResultsFromAndPersist(int index) {
        SplitIdPrimitives.checkIndex(index);
        journal().accept(h -> JournalJni.clearCallResultsFromAndPersist(h, callback(), index));
    }

    /** Marks the action completed: the journal is dropped and the record persisted. */
    public void markCompleted() {
        journal().accept(h -> JournalJni.markCompleted(h, callback()));
    }

    /**
     * Whether this execution runs the code of change {@code changeId} (Temporal's {@code patched}):
     * true in new executions and in replays of executions that recorded the change's marker, false
     * in replays of executions recorded before the change, which must take the old path. The
     * marker is a journal slot ({@code patched:<changeId>}), recorded at the first call on a new
     * path, so the answer replays stably; the rule is the native journal's (docs/replay.md,
     * "Markers for code that must take the old path"). Call it where the changed code begins, in
     * the same place on every run.
     */
    public boolean patched(String changeId) {
        byte[] id = Utf8.encode(Objects.requireNonNull(changeId, "changeId"), "changeId");
        NativeHandle journal = journal();
        return journal.apply(h -> {
            guard.refuseWhileCallInProgress("patched('" + changeId + "')");
            runnerCalls.forgetJustRuns();
            return JournalJni.patched(h, callback(), id);
        });
    }

    /**
     * The call or batch in progress ended, with its outcome recorded or not (interrupted, an
     * {@link Error}); a batch's outcomes were recorded one by one.
     */
    void endCall() {
        guard.end();
    }

    /**
     * The idempotency key of the call {@code functionId} at absolute slot {@code index} (see {@link
     * DurableCall#idempotencyKey()}): for a runtime that runs durable calls through the primitives
     * (Flink Agents' Python bridge) and hands the key to the call's body itself.
     *
     * @throws JournalException {@code ILLEGAL_STATE} when the journal belongs to no store entry
     */
    public String idempotencyKeyAt(int index, String functionId) {
        SplitIdPrimitives.checkIndex(index);
        byte[] id = SplitIdPrimitives.id(functionId);
        return journal().apply(h -> JournalJni.idempotencyKey(h, index, id));
    }

    /**
     * Runs the body of the call in progress on the current thread, an executor's: a durable call
     * it starts is then refused as nested rather than as concurrent.
     */
    <T> T runAsBody(Callable<T> body) throws Exception {
        return guard.runAsBody(body);
    }

    /**
     * How many durable calls ({@code RunnerContextImpl.durableExecute}, {@code durableExecuteAsync}
     * and the calls of {@code durableExecuteAll}) this context replayed from the journal (returned
     * or rethrew the recorded outcome without running them) since it was created.
     */
    public int getReplayedCallCount() {
        return lazyJournal.replayedCallCount(counters);
    }

    /** How many durable calls the journal said to run (their body ran) since it was created. */
    public int getExecutedCallCount() {
        return counters.executed();
    }

    /**
     * How many durable calls found their slot PENDING and ran their reconciler instead of their
     * body since this context was created.
     */
    public int getReconciledCallCount() {
        return counters.reconciled();
    }

    /**
     * Frees the native journal. Idempotent. Called from inside a call on this context (its
     * persister), it takes effect when that call returns; called from another thread while a call
     * runs, it waits for that call.
     */
    @Override
    public void close() {
        lazyJournal.close();
    }

    /**
     * The object native code hands each persisted state to. Without a persister there is none, so
     * the native side does not serialize the state only for it to be dropped.
     */
    DurableExecutionContext callback() {
        return persister == null ? null : this;
    }

    /**
     * Called from native code after every persisted mutation, inside the call that made it: the
     * persister may not call back into this context (the native handle refuses it) but may close it.
     * Called by {@code JavaPersister} in {@code rust/jni/journal.rs}.
     */
    @CalledFromNative
    @SuppressWarnings("unused")
    private void persistSnapshot(byte[] actionStateJson) {
        if (persister == null) {
            return;
        }
        try {
            persister.persist(ActionStateSerde.fromCanonical(actionStateJson));
        } catch (RuntimeException e) {
            throw e;
        } catch (Exception e) {
            throw new JournalException(JournalException.Code.PERSIST_FAILED, "the ActionStatePersister failed: " + e, e);
        }
    }
}
