package io.durablejournal;

// One job: the journal steps of RunnerContextImpl's durable calls on a context, made one at a time
// (begin and complete, with the shortcut that skips the native crossing when the next call can only
// run) or as a durableExecuteAll batch (begin, decide, count, name an interrupted call).

import io.durablejournal.internal.NativeHandle;
import io.durablejournal.internal.Utf8;
import java.util.List;

/**
 * The steps of the durable calls {@link RunnerContextImpl} makes on a {@link
 * DurableExecutionContext}'s journal. A call made on its own is begun and completed: a recorded
 * hit is answered before the journal opens ({@link LazyJournal#nextHit}), anything else is one
 * native crossing, or none when the journal said after the last {@link #completeCall} that the next
 * call just runs. A {@code durableExecuteAll} batch (spec §2.5) is begun, decided and counted, one
 * native crossing each, and an interrupted at-most-once call of it gets its exception from the
 * journal. Each step is counted, its divergence reported, and the call or batch marked in progress
 * for the {@link CallGuard}. One per context.
 */
final class RunnerCalls {
    private final LazyJournal journal;
    private final CallGuard guard;
    private final CallCounters counters;
    private final DivergenceLog divergences;
    /** The context native code hands persisted states to, or null: nothing to persist. */
    private final DurableExecutionContext persister;
    /**
     * The journal whose last call was a {@link #completeCall} that left nothing for the next call to
     * decide (see {@code JournalJni.completeCall}), and its {@link NativeHandle#calls()} then:
     * while no other call has touched it, a call without a reconciler just runs, and {@link
     * #beginCall} says so without crossing into the native library.
     */
    private NativeHandle justRunsOn;
    private long justRunsAtCall;

    RunnerCalls(LazyJournal journal, CallGuard guard, CallCounters counters, DivergenceLog divergences,
            DurableExecutionContext persister) {
        this.journal = journal;
        this.guard = guard;
        this.counters = counters;
        this.divergences = divergences;
        this.persister = persister;
    }

    /**
     * Decides how a durable call proceeds, in one native crossing (none for a hit answered from
     * the recorded state): run its body, run its reconciler, or replay the recorded outcome. From
     * a run or reconcile answer until {@link #completeCall} (or {@link DurableExecutionContext#endCall})
     * the call is in progress, and a durable call begun meanwhile is refused (nested or
     * concurrent). It declares its {@link CallSemantics} (null: not declared) under a runner's
     * default (null: none); an interrupted at-most-once call is a {@link CallInterruptedException}.
     */
    CallStep beginCall(String functionId, boolean reconcilable, CallSemantics declared, CallSemantics jobDefault) {
        byte[] id = Utf8.encode(functionId, "functionId");
        if (!journal.isOpen()) {
            CallStep hit = journal.nextHit(id, functionId, guard);
            if (hit != null) {
                return hit;
            }
        }
        NativeHandle journal = this.journal.get();
        long h = journal.acquire();
        try {
            guard.refuseWhileCallInProgress("durable call '" + functionId + "'");
            boolean declaresNothing = declared == null && jobDefault == null;
            CallStep step = declaresNothing && !reconcilable && nextCallJustRuns(journal) ? null
                    : declaresNothing ? JournalJni.beginCall(h, persister, id, reconcilable)
                    : JournalJni.beginCallWithSemantics(h, persister, id, null, reconcilable,
                            CallSemantics.numberOf(declared), CallSemantics.numberOf(jobDefault));
            if (step == null) {
                step = CallStep.RUN_BODY;
            } else if (step.divergence != null) {
                divergences.report(step.divergence);
            }
            counters.count(step.kind);
            if (step.kind != CallStep.REPLAY) {
                guard.begin("durable call '" + functionId + "'");
            }
            return step;
        } finally {
            journal.release();
        }
    }

    /** Records the outcome of a call that {@link #beginCall} said to run; it is no longer in progress. */
    void completeCall(String functionId, byte[] resultPayload, byte[] exceptionPayload) {
        byte[] id = Utf8.encode(functionId, "functionId");
        NativeHandle journal = this.journal.get();
        journal.accept(h -> {
            guard.recorded();
            if (JournalJni.completeCall(h, persister, id, resultPayload, exceptionPayload)) {
                justRunsOn = journal;
                justRunsAtCall = journal.calls();
            }
        });
    }

    /** Another kind of call on the journal (a {@code patched} marker): the next call decides again. */
    void forgetJustRuns() {
        justRunsOn = null;
    }

    /**
     * Whether the held {@code journal}'s last call was a {@link #completeCall} after which the next
     * call just runs: the call holding it now is the only one since.
     */
    private boolean nextCallJustRuns(NativeHandle journal) {
        return justRunsOn == journal && journal.calls() == justRunsAtCall + 1;
    }

    /** Each call id's UTF-8, in order; a null id is refused naming its position. */
    static byte[][] encodeIds(List<String> functionIds) {
        byte[][] encoded = new byte[functionIds.size()][];
        for (int i = 0; i < encoded.length; i++) {
            encoded[i] = Utf8.encode(functionIds.get(i), "functionIds[" + i + "]");
        }
        return encoded;
    }

    /**
     * A batch of {@code size} calls starts; until {@link DurableExecutionContext#endCall} every
     * durable call begun is refused (nested or concurrent), and so is a batch begun inside a call.
     */
    void beginBatch(int size) {
        journal.get().accept(h -> {
            guard.refuseWhileCallInProgress("a durableExecuteAll batch of " + size + " calls");
            guard.begin("a durableExecuteAll batch of " + size + " calls");
        });
    }

    /**
     * Decides a batch at the index: per call, whether it runs (its slot is PENDING, reserved now
     * or left by an interrupted run) or replays its recorded slot at {@code index + i}. A recorded
     * slot of another call is a divergence, answered by the context's divergence policy.
     */
    boolean[] decideBatch(List<String> functionIds) {
        byte[][] encoded = encodeIds(functionIds);
        return journal.get().apply(h -> {
            boolean[] runs = JournalJni.beginBatch(h, persister, encoded);
            divergences.reportIfAny(h, journal.divergencePolicy());
            return runs;
        });
    }

    /**
     * {@link #decideBatch(List)} for calls with declared semantics (an entry per call, null: not
     * declared) under a runner's default: per call a {@link CallStep} kind, {@code RUN}, {@code
     * REPLAY} or {@code INTERRUPTED} (see {@link #interruptionAt}).
     */
    int[] decideBatch(List<String> functionIds, List<CallSemantics> declared, CallSemantics jobDefault) {
        byte[][] encoded = encodeIds(functionIds);
        int[] numbers = new int[declared.size()];
        for (int i = 0; i < numbers.length; i++) {
            numbers[i] = CallSemantics.numberOf(declared.get(i));
        }
        return journal.get().apply(h -> {
            int[] kinds = JournalJni.beginBatchWithSemantics(h, persister, encoded, numbers, CallSemantics.numberOf(jobDefault));
            divergences.reportIfAny(h, journal.divergencePolicy());
            return kinds;
        });
    }

    /** A batch was decided: so many of its calls replay, so many run. */
    void countBatch(int replayed, int executed) {
        journal.get().accept(h -> counters.countBatch(replayed, executed));
    }

    /** The {@link CallInterruptedException} of the call {@code functionId} at absolute slot {@code index}. */
    CallInterruptedException interruptionAt(int index, String functionId) {
        byte[] id = Utf8.encode(functionId, "functionId");
        try {
            journal.get().accept(h -> JournalJni.throwInterruption(h, index, id));
        } catch (CallInterruptedException e) {
            return e;
        }
        throw new IllegalStateException("the native journal did not report the interruption of '" + functionId + "'");
    }
}
