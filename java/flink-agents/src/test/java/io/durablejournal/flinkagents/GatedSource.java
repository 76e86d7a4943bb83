package io.durablejournal.flinkagents;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import org.apache.flink.api.common.state.CheckpointListener;
import org.apache.flink.api.common.state.ListState;
import org.apache.flink.api.common.state.ListStateDescriptor;
import org.apache.flink.api.common.typeinfo.Types;
import org.apache.flink.runtime.state.FunctionInitializationContext;
import org.apache.flink.runtime.state.FunctionSnapshotContext;
import org.apache.flink.streaming.api.checkpoint.CheckpointedFunction;
import org.apache.flink.streaming.api.functions.source.legacy.SourceFunction;

/**
 * Emits its records once a checkpoint taken before any of them has completed (the checkpoint the
 * job restores from), all under one hold of the checkpoint lock; while the run's crash is staged
 * and has not happened it keeps holding the lock (no later checkpoint completes) until the failover
 * cancels it. Its position is checkpointed. Nothing sleeps: waits are on monitors.
 */
final class GatedSource implements SourceFunction<String>, CheckpointedFunction, CheckpointListener {
    private static final long serialVersionUID = 1L;

    private final String runId;
    private final ArrayList<String> records;

    private transient ListState<Integer> positionState;
    private transient Object gate;
    private transient boolean gateCheckpointTaken;
    private transient boolean gateOpen;
    private volatile int position;
    private volatile boolean running = true;

    GatedSource(String runId, List<String> records) {
        this.runId = runId;
        this.records = new ArrayList<>(records);
    }

    @Override
    public void initializeState(FunctionInitializationContext context) throws Exception {
        gate = new Object();
        positionState = context.getOperatorStateStore().getListState(new ListStateDescriptor<>("position", Types.INT));
        position = 0;
        for (Integer restored : positionState.get()) {
            position = restored;
        }
    }

    @Override
    public void run(SourceContext<String> ctx) throws Exception {
        JournalRun run = JournalRun.of(runId);
        if (position == 0 && !awaitGate()) {
            return;
        }
        synchronized (ctx.getCheckpointLock()) {
            while (position < records.size()) {
                ctx.collect(records.get(position));
                position++;
            }
            run.awaitCrash(() -> running);
        }
    }

    private boolean awaitGate() throws InterruptedException {
        synchronized (gate) {
            while (running && !gateOpen) {
                gate.wait();
            }
            return running;
        }
    }

    @Override
    public void snapshotState(FunctionSnapshotContext context) throws Exception {
        positionState.update(Collections.singletonList(position));
        synchronized (gate) {
            gateCheckpointTaken |= position == 0;
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
    public void cancel() {
        running = false;
        if (gate != null) {
            synchronized (gate) {
                gate.notifyAll();
            }
        }
        JournalRun.of(runId).wakeUp();
    }
}
