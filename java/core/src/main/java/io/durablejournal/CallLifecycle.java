package io.durablejournal;

// One job: beginning and completing a RunnerContextImpl durable call on a context's journal,
// with the shortcut that skips the native crossing when the next call can only run.

import io.durablejournal.internal.NativeHandle;
import io.durablejournal.internal.Utf8;

/**
 * Begins and completes the durable calls {@link RunnerContextImpl} makes one at a time on a
 * {@link DurableExecutionContext}'s journal: a recorded hit is answered before the journal opens
 * ({@link LazyJournal#nextHit}), anything else is one native crossing, or none when the journal
 * said after the last {@link #complete} that the next call just runs. Counts each step, reports
 * its divergence, and marks the call in progress for the {@link CallGuard}. One per context.
 */
final class CallLifecycle {
    private final LazyJournal journal;
    private final CallGuard guard;
    private final CallCounters counters;
    private final DivergenceLog divergences;
    /** The context native code hands persisted states to, or null: nothing to persist. */
    private final DurableExecutionContext persister;
    /**
     * The journal whose last call was a {@link #complete} that left nothing for the next call to
     * decide (see {@code NativeJournal.completeCall}), and its {@link NativeHandle#calls()} then:
     * while no other call has touched it, a call without a reconciler just runs, and {@link
     * #begin} says so without crossing into the native library.
     */
    private NativeHandle justRunsOn;
    private long justRunsAtCall;

    CallLifecycle(LazyJournal journal, CallGuard guard, CallCounters counters, DivergenceLog divergences,
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
     * a run or reconcile answer until {@link #complete} (or {@link DurableExecutionContext#endCall})
     * the call is in progress, and a durable call begun meanwhile is refused (nested or
     * concurrent). It declares its {@link CallSemantics} (null: not declared) under a runner's
     * default (null: none); an interrupted at-most-once call is a {@link CallInterruptedException}.
     */
    CallStep begin(String functionId, boolean reconcilable, CallSemantics declared, CallSemantics jobDefault) {
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
                    : declaresNothing ? NativeJournal.beginCall(h, persister, id, reconcilable)
                    : NativeJournal.beginCallWithSemantics(h, persister, id, reconcilable,
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

    /** Records the outcome of a call that {@link #begin} said to run; it is no longer in progress. */
    void complete(String functionId, byte[] resultPayload, byte[] exceptionPayload) {
        byte[] id = Utf8.encode(functionId, "functionId");
        NativeHandle journal = this.journal.get();
        journal.accept(h -> {
            guard.recorded();
            if (NativeJournal.completeCall(h, persister, id, resultPayload, exceptionPayload)) {
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
     * Whether the held {@code journal}'s last call was a {@link #complete} after which the next
     * call just runs: the call holding it now is the only one since.
     */
    private boolean nextCallJustRuns(NativeHandle journal) {
        return justRunsOn == journal && journal.calls() == justRunsAtCall + 1;
    }
}
