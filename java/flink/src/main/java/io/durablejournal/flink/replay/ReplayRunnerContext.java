package io.durablejournal.flink.replay;

import io.durablejournal.DurableCallable;
import io.durablejournal.DurableExecutionContext;
import io.durablejournal.NonDeterministicReplayException;
import io.durablejournal.RunnerContextImpl;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;

/**
 * The runner context a candidate runs on in a replay. Which recorded slot replays is the native
 * journal's decision, as in production ({@link RunnerContextImpl} over a journal of the recorded
 * calls, divergence policy FAIL); this class only stands between the journal and a call's body:
 * when the journal says a body would run, no body runs. A stub for the call's id answers instead,
 * or the action stops there ({@link ReplayStop}) and {@link #stop} says why.
 */
public final class ReplayRunnerContext extends RunnerContextImpl {
    private final DurableExecutionContext journal;
    private final Map<String, Callable<?>> stubs;
    /** What ended the action early, or null. */
    ActionReplay.Stop stop;
    final List<String> stubbedCalls = new ArrayList<>();
    /** The changes whose {@code patched} answered false: this execution takes their old path. */
    final List<String> oldPaths = new ArrayList<>();
    /** Recorded patch markers the candidate asked for again (the journal stepped past them). */
    private int replayedMarkers;

    /**
     * @param journal a journal of the recorded calls, divergence policy FAIL
     * @param stubs answers for calls the recording lacks, by call id
     */
    public ReplayRunnerContext(DurableExecutionContext journal, Map<String, Callable<?>> stubs) {
        super(journal, Runnable::run);
        this.journal = journal;
        this.stubs = stubs;
    }

    /** What ended the action early (a divergence, a call the recording lacks), or null. */
    public ActionReplay.Stop getStop() {
        return stop;
    }

    /** The calls the recording lacks that a stub answered, in order. */
    public List<String> getStubbedCalls() {
        return stubbedCalls;
    }

    /** The changes whose {@code patched} answered false, in order. */
    public List<String> getOldPaths() {
        return oldPaths;
    }

    /**
     * The recorded slots the candidate replayed: its calls answered from the recording and the
     * recorded patch markers it asked for again (a marker is a slot of the journal, not a call,
     * so the journal's {@link #getReplayedCallCount} does not count it). What a report's
     * "replayed" counts, against the recorded slots.
     */
    public int getReplayedSlotCount() {
        return getReplayedCallCount() + replayedMarkers;
    }

    /**
     * Where the candidate left the recording once its action returned: where it stopped, or, when
     * it finished before making every {@code recorded} call, a divergence at the first it did not
     * make (the recorded id and status there, no candidate call).
     */
    public ActionReplay.Stop stopWhenFinished(List<io.durablejournal.CallResult> recorded) {
        int reached = journal.getCurrentCallIndex();
        if (stop != null || reached >= recorded.size()) {
            return stop;
        }
        io.durablejournal.CallResult unmade = recorded.get(reached);
        return ActionReplay.Stop.diverged(reached, unmade.getFunctionId(), String.valueOf(unmade.getStatus()), null);
    }

    @Override
    public <T> T durableExecute(DurableCallable<T> callable) throws Exception {
        return guarded(() -> super.durableExecute(gated(callable, -1)));
    }

    @Override
    public <T> T durableExecuteAsync(DurableCallable<T> callable) throws Exception {
        return guarded(() -> super.durableExecuteAsync(gated(callable, -1)));
    }

    @Override
    public List<Object> durableExecuteAll(List<? extends DurableCallable<?>> callables) throws Exception {
        int start = journal.getCurrentCallIndex();
        List<DurableCallable<?>> gated = new ArrayList<>(callables.size());
        for (int i = 0; i < callables.size(); i++) {
            gated.add(gated(callables.get(i), start + i));
        }
        return guarded(() -> super.durableExecuteAll(gated));
    }

    @Override
    public boolean patched(String changeId) {
        // True over a recorded slot is the journal stepping past this change's marker (spec §2.9);
        // true past the recording is a new marker, replaying nothing.
        boolean overARecordedSlot = journal.getCurrentCallIndex() < journal.size();
        boolean patched = super.patched(changeId);
        if (!patched) {
            oldPaths.add(changeId);
        } else if (overARecordedSlot) {
            replayedMarkers++;
        }
        return patched;
    }

    /** Replays never hand work to another thread: a body never runs. */
    @Override
    protected <T> T runAsync(Callable<T> body) throws Exception {
        return body.call();
    }

    @Override
    protected ClassLoader userClassLoader(DurableCallable<?> callable) {
        DurableCallable<?> user = callable instanceof Gated ? ((Gated<?>) callable).inner : callable;
        return super.userClassLoader(user);
    }

    /** A divergence the journal refused becomes the action's stop, with the journal's diff. */
    private <T> T guarded(Callable<T> call) throws Exception {
        try {
            return call.call();
        } catch (NonDeterministicReplayException e) {
            stop = ActionReplay.Stop.diverged(e.getPosition(), e.getRecordedCallId(), String.valueOf(e.getRecordedStatus()),
                    e.getNewCallId());
            throw new ReplayStop(e.getMessage());
        }
    }

    private <T> DurableCallable<T> gated(DurableCallable<T> callable, int position) {
        return new Gated<>(callable, position);
    }

    /** The body (or reconciler) the journal would run: a stub's answer, or the stop. */
    private <T> T instead(String id, int batchPosition, Class<T> resultClass) throws Exception {
        Callable<?> stub = stubs.get(id);
        int position = batchPosition >= 0 ? batchPosition : journal.getCurrentCallIndex();
        if (stub instanceof RecordedValueStub) {
            stubbedCalls.add(id);
            return decodeRecordedResult(id, ((RecordedValueStub) stub).json(), resultClass);
        }
        if (stub != null) {
            stubbedCalls.add(id);
            return resultClass.cast(stub.call());
        }
        stop = ActionReplay.Stop.wouldRun(position, id);
        throw new ReplayStop("the candidate would run call '" + id + "' at position " + position
                + ", which the recording does not have");
    }

    /** A user's call whose body and reconciler the replay never runs. */
    private final class Gated<T> implements DurableCallable<T> {
        final DurableCallable<T> inner;
        private final int position;

        Gated(DurableCallable<T> inner, int position) {
            this.inner = inner;
            this.position = position;
        }

        @Override
        public String getId() {
            return inner.getId();
        }

        @Override
        public Class<T> getResultClass() {
            return inner.getResultClass();
        }

        @Override
        public T call() throws Exception {
            return instead(getId(), position, getResultClass());
        }

        @Override
        public Callable<T> reconciler() {
            return inner.reconciler() == null ? null : this::call;
        }

        @Override
        public io.durablejournal.CallSemantics semantics() {
            return inner.semantics();
        }
    }
}
