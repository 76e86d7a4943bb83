package io.durablejournal;

// One job: a durableExecuteAll batch on a context's journal (reserving, deciding and counting its
// calls, and naming an interrupted one).

import io.durablejournal.internal.Utf8;
import java.util.List;

/**
 * The steps of a {@code durableExecuteAll} batch (spec §2.5) on a {@link DurableExecutionContext}'s
 * journal, one native crossing each: the batch is marked in progress for the {@link CallGuard},
 * the journal decides per call whether it runs or replays, the calls are counted, and an
 * interrupted at-most-once call gets its exception from the journal. One per context.
 */
final class BatchLifecycle {
    private final LazyJournal journal;
    private final CallGuard guard;
    private final CallCounters counters;
    private final DivergenceLog divergences;
    /** The context native code hands persisted states to, or null: nothing to persist. */
    private final DurableExecutionContext persister;

    BatchLifecycle(LazyJournal journal, CallGuard guard, CallCounters counters, DivergenceLog divergences,
            DurableExecutionContext persister) {
        this.journal = journal;
        this.guard = guard;
        this.counters = counters;
        this.divergences = divergences;
        this.persister = persister;
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
    void begin(int size) {
        journal.get().accept(h -> {
            guard.refuseWhileCallInProgress("a durableExecuteAll batch of " + size + " calls");
            guard.begin("a durableExecuteAll batch of " + size + " calls");
        });
    }

    /**
     * Decides the batch at the index: per call, whether it runs (its slot is PENDING, reserved now
     * or left by an interrupted run) or replays its recorded slot at {@code index + i}. A recorded
     * slot of another call is a divergence, answered by the context's divergence policy.
     */
    boolean[] decide(List<String> functionIds) {
        byte[][] encoded = encodeIds(functionIds);
        return journal.get().apply(h -> {
            boolean[] runs = NativeJournal.beginBatch(h, persister, encoded);
            divergences.reportIfAny(h, journal.divergencePolicy());
            return runs;
        });
    }

    /**
     * {@link #decide(List)} for calls with declared semantics (an entry per call, null: not
     * declared) under a runner's default: per call a {@link CallStep} kind, {@code RUN}, {@code
     * REPLAY} or {@code INTERRUPTED} (see {@link #interruptionAt}).
     */
    int[] decide(List<String> functionIds, List<CallSemantics> declared, CallSemantics jobDefault) {
        byte[][] encoded = encodeIds(functionIds);
        int[] numbers = new int[declared.size()];
        for (int i = 0; i < numbers.length; i++) {
            numbers[i] = CallSemantics.numberOf(declared.get(i));
        }
        return journal.get().apply(h -> {
            int[] kinds = NativeJournal.beginBatchWithSemantics(h, persister, encoded, numbers, CallSemantics.numberOf(jobDefault));
            divergences.reportIfAny(h, journal.divergencePolicy());
            return kinds;
        });
    }

    /** The batch was decided: so many of its calls replay, so many run. */
    void count(int replayed, int executed) {
        journal.get().accept(h -> counters.countBatch(replayed, executed));
    }

    /** The {@link CallInterruptedException} of the call {@code functionId} at absolute slot {@code index}. */
    CallInterruptedException interruptionAt(int index, String functionId) {
        byte[] id = Utf8.encode(functionId, "functionId");
        try {
            journal.get().accept(h -> NativeJournal.throwInterruption(h, index, id));
        } catch (CallInterruptedException e) {
            return e;
        }
        throw new IllegalStateException("the native journal did not report the interruption of '" + functionId + "'");
    }
}
