package io.durablejournal.demo;

import java.io.Serializable;

/**
 * What a run adds to the staged failover of {@link RequestSource}, where the two operators differ.
 * Our operator runs an action to its end before it takes the next record, so a checkpoint barrier
 * behind a request means the request is done: {@link #CHECKPOINTS_ONLY}. Flink Agents' operator
 * keeps an action's follow-up events in its state across a barrier, so its run also asks whether
 * the requests are answered, and holds the checkpoint lock after the burst
 * (io.durablejournal.flinkagents.demo.Staging).
 */
public interface FailoverStaging extends Serializable {
    /** Our operator's: every checkpoint counts, the gate always stages, nothing held after the burst. */
    FailoverStaging CHECKPOINTS_ONLY = new FailoverStaging() {
        private static final long serialVersionUID = 1L;
    };

    /** Whether the gate stages the failover in this attempt (false: the requests flow past it). */
    default boolean gateActive() {
        return true;
    }

    /** Whether a checkpoint snapshotted now, with {@code position} requests emitted, covers them. */
    default boolean snapshotCovers(int position) {
        return true;
    }

    /**
     * Runs under the checkpoint lock right after the burst: returning lets checkpoints and the
     * source go on, so a run whose operator could checkpoint past the crashing request holds here
     * until {@code source} is cancelled.
     */
    default void afterBurst(RequestSource<?> source) throws InterruptedException {}

    /**
     * Runs (without the checkpoint lock) once the source emitted its last request; returning ends
     * the source, so a run that is to be cancelled, not finished, holds here until {@code source}
     * is cancelled.
     */
    default void afterLast(RequestSource<?> source) throws InterruptedException {}

    /** The source was cancelled: wake whatever {@link #afterBurst} or {@link #afterLast} waits on. */
    default void cancelled() {}
}
