package io.durablejournal.testing;

import java.io.Serializable;

/**
 * A staged test job's source: it emits all its records at once, under one hold of the checkpoint
 * lock (no checkpoint falls between them), then stays up as long as its run needs it, so that it
 * takes part in (and sees) every checkpoint until then. Its position is checkpointed: after a
 * restore it emits nothing again. It names the run's {@link CheckpointWitness} (the first
 * checkpoint whose snapshot starts once the run is ready) and reports completed checkpoints to it.
 */
public final class BurstSource<T> extends CheckpointedPositionSource<T> {
    private static final long serialVersionUID = 1L;

    /** What the source reports to and waits on: the probe of its run, in this JVM. */
    public interface Run {
        CheckpointWitness witness();

        /** Whether a checkpoint whose snapshot starts now may be the witness. */
        boolean readyForWitness();

        /** Returns when the source may finish: waits on the run's monitor while {@code source} runs and the run needs it. */
        void holdSource(BurstSource<?> source) throws InterruptedException;

        /** Flink cancelled the source: wakes up {@link #holdSource}. */
        void sourceCancelled();
    }

    /** Finds a run by its id (a static {@link RunRegistry}'s lookup); serialized with the source. */
    public interface Runs extends Serializable {
        Run of(String runId);
    }

    /** Record {@code i} of the burst. */
    public interface Records<T> extends Serializable {
        T record(int i);
    }

    private final Runs runs;
    private final String runId;
    private final int count;
    private final Records<T> records;

    public BurstSource(Runs runs, String runId, int count, Records<T> records) {
        this.runs = runs;
        this.runId = runId;
        this.count = count;
        this.records = records;
    }

    @Override
    public void run(SourceContext<T> ctx) throws Exception {
        Run run = runs.of(runId);
        synchronized (ctx.getCheckpointLock()) {
            emitUpTo(ctx, count, records::record);
        }
        run.holdSource(this);
    }

    @Override
    protected void afterSnapshot(long checkpointId) {
        Run run = runs.of(runId);
        run.witness().snapshotTaken(checkpointId, run.readyForWitness());
    }

    @Override
    public void notifyCheckpointComplete(long checkpointId) {
        runs.of(runId).witness().checkpointCompleted(checkpointId);
    }

    @Override
    protected void afterCancel() {
        runs.of(runId).sourceCancelled();
    }
}
