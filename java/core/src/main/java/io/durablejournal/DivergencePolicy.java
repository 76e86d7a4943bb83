package io.durablejournal;

/**
 * What a journal does when a re-run action makes a different durable call at a position it has
 * recorded (the action is not deterministic: its code changed between runs, or it branched on
 * something the journal did not record, such as a clock, a random number or a map's order). The
 * recorded calls from that position on cannot be trusted to belong to the calls the re-run makes,
 * so the journal cuts them there and the calls run again; the policy says whether anyone is told.
 * The native journal decides; see {@link DurableExecutionContext#setDivergencePolicy}.
 */
public enum DivergencePolicy {
    /** Cut the journal there and run the rest again, silently (Flink Agents 0.3.1's behaviour). */
    CUT(0),
    /**
     * Cut and run on as {@link #CUT}, and report it: a warning in the log (logger {@code
     * io.durablejournal.DurableExecutionContext}, through SLF4J where the class path has it, as
     * every Flink runtime does, else {@link System.Logger}), {@link
     * DurableExecutionContext#getDivergedCallCount()} and the Flink operators' {@code
     * callsDiverged} metric. The default: a Flink job keeps running every other key, and the
     * divergence is visible to whoever watches the log or the metric.
     */
    WARN(1),
    /**
     * Refuse the call with a {@link NonDeterministicReplayException} carrying the diff; the
     * journal is unchanged, so a fixed deployment replays the recorded calls. In a Flink job the
     * exception fails the task and the job restarts from its checkpoint until the code is fixed.
     */
    FAIL(2);

    private final int number;

    DivergencePolicy(int number) {
        this.number = number;
    }

    /** The number the native journal knows this policy by. */
    int number() {
        return number;
    }
}
