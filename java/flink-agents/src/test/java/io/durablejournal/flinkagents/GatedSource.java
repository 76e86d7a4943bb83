package io.durablejournal.flinkagents;

import io.durablejournal.testing.CheckpointedPositionSource;
import java.util.ArrayList;
import java.util.List;

/**
 * Emits its records once a checkpoint taken before any of them has completed (the checkpoint the
 * job restores from), all under one hold of the checkpoint lock; while the run's crash is staged
 * and has not happened it keeps holding the lock (no later checkpoint completes) until the failover
 * cancels it. Its position is checkpointed. Nothing sleeps: waits are on monitors.
 */
final class GatedSource extends CheckpointedPositionSource<String> {
    private static final long serialVersionUID = 1L;

    private final String runId;
    private final ArrayList<String> records;

    private transient Object gate;
    private transient boolean gateCheckpointTaken;
    private transient boolean gateOpen;

    GatedSource(String runId, List<String> records) {
        this.runId = runId;
        this.records = new ArrayList<>(records);
    }

    @Override
    protected void afterInitialize() {
        gate = new Object();
    }

    @Override
    public void run(SourceContext<String> ctx) throws Exception {
        JournalRun run = JournalRun.of(runId);
        if (position() == 0 && !awaitGate()) {
            return;
        }
        synchronized (ctx.getCheckpointLock()) {
            emitUpTo(ctx, records.size(), records::get);
            run.awaitCrash(this::isRunning);
        }
    }

    private boolean awaitGate() throws InterruptedException {
        synchronized (gate) {
            while (isRunning() && !gateOpen) {
                gate.wait();
            }
            return isRunning();
        }
    }

    @Override
    protected void afterSnapshot(long checkpointId) {
        synchronized (gate) {
            gateCheckpointTaken |= position() == 0;
        }
    }

    @Override
    public void notifyCheckpointComplete(long checkpointId) {
        synchronized (gate) {
            if (gateCheckpointTaken) {
                gateOpen = true;
                gate.notifyAll();
            }
        }
    }

    @Override
    protected void afterCancel() {
        if (gate != null) {
            synchronized (gate) {
                gate.notifyAll();
            }
        }
        JournalRun.of(runId).wakeUp();
    }
}
