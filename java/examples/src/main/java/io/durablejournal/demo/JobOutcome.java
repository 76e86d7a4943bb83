package io.durablejournal.demo;

import java.util.List;
import java.util.Map;
import org.apache.flink.api.common.JobExecutionResult;

/** What a run of either operator's demo job did (its own {@code AgentJob.Outcome} adds the rest). */
public class JobOutcome {
    /** The answers the job emitted, sorted. */
    public final List<String> answers;
    /** How many times each call ran, by {@code <requestId>/<callId>} ({@link SideEffectLog#counts}). */
    public final Map<String, Integer> sideEffects;
    public final boolean crashed;
    /** Completed actions re-emitted from the store after the failover, without running (journal only). */
    public final long actionsReemitted;
    /** Interrupted actions that ran again over their journal (journal only). */
    public final long actionsResumed;
    public final long wallMillis;

    protected JobOutcome(DemoJobs.Finished run, Map<String, Integer> sideEffects, boolean crashed, String reemittedAccumulator,
            String resumedAccumulator) {
        this.answers = run.answers;
        this.sideEffects = sideEffects;
        this.crashed = crashed;
        this.actionsReemitted = accumulator(run.result, reemittedAccumulator);
        this.actionsResumed = accumulator(run.result, resumedAccumulator);
        this.wallMillis = run.wallMillis;
    }

    /** A counter the job's operators added up (0 when none was added). */
    protected static long accumulator(JobExecutionResult result, String name) {
        Object value = result.getAccumulatorResult(name);
        return value == null ? 0 : ((Number) value).longValue();
    }

    /** Side effects that ran, repeats included. */
    public int sideEffectsRun() {
        int total = 0;
        for (int n : sideEffects.values()) {
            total += n;
        }
        return total;
    }

    /** Executions beyond the first, summed over all calls. */
    public int duplicateSideEffects() {
        return SideEffectLog.duplicates(sideEffects);
    }
}
