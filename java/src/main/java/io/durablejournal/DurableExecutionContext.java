package io.durablejournal;

import java.util.List;
import java.util.Objects;

/**
 * The journal of one action execution: its ActionState and a call index that starts at 0 on
 * every (re)start and is never persisted. The state machine lives in the native library; this
 * class owns the native handle, checks arguments and marshals.
 *
 * <p>Thread-safe (calls are serialized); {@link #close()} is idempotent and any call after it
 * throws {@link IllegalStateException}.
 */
public final class DurableExecutionContext implements AutoCloseable {
    private final ActionStatePersister persister;
    private long handle;
    /** True while the persister runs: it must not re-enter the journal it is persisting. */
    private boolean persisting;
    /** Calls {@link #beginCall} answered from the journal instead of running them. */
    private int replayedCalls;

    /**
     * @param state the record to resume from (a new {@code ActionState()} for a first run)
     * @param persister called once per persisted mutation, or null to persist nothing
     */
    public DurableExecutionContext(ActionState state, ActionStatePersister persister) {
        Objects.requireNonNull(state, "state");
        this.persister = persister;
        this.handle = NativeJournal.create(ActionStateSerde.serialize(state));
    }

    /** Wraps a handle created natively (e.g. bound to a native store); takes ownership. */
    DurableExecutionContext(long handle) {
        this.persister = null;
        this.handle = handle;
    }

    /**
     * Adopts a journal handle that a native store just created (see {@code
     * io.durablejournal.store.ActionStateStore#openContext}); the context owns it from then on.
     * The native library checks the value first: anything but a handle it issued and nobody has
     * adopted yet is refused with an {@link IllegalArgumentException}.
     */
    public static DurableExecutionContext adoptNativeHandle(long handle) {
        if (handle == 0 || !NativeJournal.claimIssued(handle)) {
            throw new IllegalArgumentException("not a journal handle issued by a native store, or one adopted already");
        }
        return new DurableExecutionContext(handle);
    }

    private long live() {
        if (handle == 0) {
            throw new IllegalStateException("DurableExecutionContext is closed");
        }
        if (persisting) {
            throw new IllegalStateException("an ActionStatePersister must not call back into the DurableExecutionContext");
        }
        return handle;
    }

    public synchronized int getCurrentCallIndex() {
        return NativeJournal.currentCallIndex(live());
    }

    /** Number of slots in the journal. */
    public synchronized int size() {
        return NativeJournal.size(live());
    }

    /** {@code [String functionId, String status, byte[] result, byte[] exception]} at the index, or null. */
    public synchronized Object[] getCurrentCallResultFields() {
        return withStringId(NativeJournal.currentCallResultFields(live()));
    }

    /** The same 4-tuple for absolute slot {@code index}, or null when out of range. */
    public synchronized Object[] getCallResultFieldsAt(int index) {
        if (index < 0) {
            throw new IndexOutOfBoundsException("call result index must not be negative: " + index);
        }
        return withStringId(NativeJournal.callResultFieldsAt(live(), index));
    }

    /** A snapshot of the journal as it stands. */
    public synchronized ActionState getActionState() {
        return ActionStateSerde.fromCanonical(NativeJournal.snapshot(live()));
    }

    /**
     * Hit: {@code [true, resultPayload, exceptionPayload]} and the index moves on. Miss: null (a
     * different id at the index also cuts the journal there, in memory only).
     */
    public synchronized Object[] matchNextOrClearSubsequentCallResult(String functionId) {
        Object[] hit = NativeJournal.matchNextOrClearSubsequentCallResult(live(), Utf8.encode(functionId, "functionId"));
        return hit == null ? null : new Object[] {Boolean.TRUE, hit[2], hit[3]};
    }

    public synchronized void recordCallCompletion(String functionId, byte[] resultPayload, byte[] exceptionPayload) {
        NativeJournal.recordCallCompletion(live(), callback(), Utf8.encode(functionId, "functionId"), resultPayload, exceptionPayload);
    }

    public synchronized void appendPendingCall(String functionId) {
        NativeJournal.appendPendingCall(live(), callback(), Utf8.encode(functionId, "functionId"));
    }

    public synchronized void finalizeCurrentCall(String functionId, byte[] resultPayload, byte[] exceptionPayload) {
        NativeJournal.finalizeCurrentCall(live(), callback(), Utf8.encode(functionId, "functionId"), resultPayload, exceptionPayload);
    }

    public synchronized void clearCallResultsFromCurrentIndexAndPersist() {
        NativeJournal.clearCallResultsFromCurrentIndexAndPersist(live(), callback());
    }

    public synchronized void reservePendingBatch(List<String> functionIds) {
        Objects.requireNonNull(functionIds, "functionIds");
        byte[][] encoded = new byte[functionIds.size()][];
        for (int i = 0; i < encoded.length; i++) {
            encoded[i] = Utf8.encode(functionIds.get(i), "functionIds[" + i + "]");
        }
        NativeJournal.reservePendingBatch(live(), callback(), encoded);
    }

    public synchronized void finalizeCallAt(int index, String functionId, byte[] resultPayload, byte[] exceptionPayload) {
        if (index < 0) {
            throw new IndexOutOfBoundsException("call result index must not be negative: " + index);
        }
        NativeJournal.finalizeCallAt(live(), callback(), index, Utf8.encode(functionId, "functionId"), resultPayload, exceptionPayload);
    }

    public synchronized void advanceCallIndexBy(int n) {
        if (n < 0) {
            throw new IllegalArgumentException("advance count must not be negative: " + n);
        }
        NativeJournal.advanceCallIndexBy(live(), n);
    }

    public synchronized void clearCallResultsFromAndPersist(int index) {
        if (index < 0) {
            throw new IndexOutOfBoundsException("call result index must not be negative: " + index);
        }
        NativeJournal.clearCallResultsFromAndPersist(live(), callback(), index);
    }

    /** Marks the action completed: the journal is dropped and the record persisted. */
    public synchronized void markCompleted() {
        NativeJournal.markCompleted(live(), callback());
    }

    /**
     * Decides how a durable call proceeds, in one native crossing: null means run the call, an
     * empty array run the reconciler, and a 4-tuple is the recorded slot to replay.
     */
    synchronized Object[] beginCall(String functionId, boolean reconcilable) {
        Object[] step = NativeJournal.beginCall(live(), callback(), Utf8.encode(functionId, "functionId"), reconcilable);
        if (step != null && step.length > 0) {
            replayedCalls++;
        }
        return step;
    }

    /**
     * How many calls of {@code RunnerContextImpl.durableExecute}/{@code durableExecuteAsync} this
     * context replayed from the journal (returned or rethrew the recorded outcome without running
     * them) since it was created.
     */
    public synchronized int getReplayedCallCount() {
        return replayedCalls;
    }

    /** Records the outcome of a call that {@link #beginCall} said to run. */
    synchronized void completeCall(String functionId, byte[] resultPayload, byte[] exceptionPayload) {
        NativeJournal.completeCall(live(), callback(), Utf8.encode(functionId, "functionId"), resultPayload, exceptionPayload);
    }

    @Override
    public synchronized void close() {
        if (handle != 0) {
            long closing = handle;
            handle = 0;
            NativeJournal.destroy(closing);
        }
    }

    /**
     * The object native code hands each persisted state to. Without a persister there is none, so
     * the native side does not serialize the state only for it to be dropped.
     */
    private Object callback() {
        return persister == null ? null : this;
    }

    /** Called from native code after every persisted mutation. */
    @SuppressWarnings("unused")
    private void persistSnapshot(byte[] actionStateJson) {
        if (persister == null) {
            return;
        }
        persisting = true;
        try {
            persister.persist(ActionStateSerde.fromCanonical(actionStateJson));
        } catch (RuntimeException e) {
            throw e;
        } catch (Exception e) {
            throw new JournalException(JournalException.Code.PERSIST_FAILED, "the ActionStatePersister failed: " + e, e);
        } finally {
            persisting = false;
        }
    }

    private static Object[] withStringId(Object[] fields) {
        if (fields == null) {
            return null;
        }
        // Null for a slot Flink Agents wrote with a null id.
        fields[0] = fields[0] == null ? null : Utf8.decode((byte[]) fields[0]);
        return fields;
    }
}
