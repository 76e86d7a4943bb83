package io.durablejournal.flinkagents.demo;

import java.util.Collections;
import org.apache.flink.api.common.state.CheckpointListener;
import org.apache.flink.api.common.state.ListState;
import org.apache.flink.api.common.state.ListStateDescriptor;
import org.apache.flink.api.common.typeinfo.Types;
import org.apache.flink.runtime.state.FunctionInitializationContext;
import org.apache.flink.runtime.state.FunctionSnapshotContext;
import org.apache.flink.streaming.api.checkpoint.CheckpointedFunction;
import org.apache.flink.streaming.api.functions.source.legacy.SourceFunction;

/**
 * Emits requests {@code 0 .. count-1} ({@link SupportRequest#number}) and stages the failover:
 * <ul>
 *   <li>Before request {@code gateAt} it waits until a checkpoint has completed that was taken
 *       after every earlier request was answered: the checkpoint the job restores from.</li>
 *   <li>It emits {@code gateAt .. burstEnd} under one hold of the checkpoint lock and keeps
 *       holding it until the failover after the crash cancels it: no checkpoint completes after
 *       the gate's and nothing after the burst is emitted, so the restore replays exactly the
 *       burst (and the requests after it run once, after the restore).</li>
 * </ul>
 * Its position is checkpointed. A negative {@code gateAt} stages nothing. Waits are on monitors,
 * woken by checkpoints and {@link #cancel()}; nothing sleeps.
 */
public class RequestSource implements SourceFunction<SupportRequest>, CheckpointedFunction, CheckpointListener {
    private static final long serialVersionUID = 1L;

    private final String runId;
    private final int count;
    private final int gateAt;
    private final int burstEnd;

    private transient ListState<Integer> positionState;
    private transient Object gate;
    /** The first checkpoint whose snapshot saw every request below the gate answered. */
    private transient long gateCheckpoint;
    private transient boolean gateOpen;
    private volatile int position;
    private volatile boolean running = true;

    public RequestSource(String runId, int count, int gateAt, int burstEnd) {
        if (gateAt >= 0 && (burstEnd < gateAt || burstEnd >= count)) {
            throw new IllegalArgumentException("need gateAt <= burstEnd < count: " + gateAt + ", " + burstEnd + ", " + count);
        }
        this.runId = runId;
        this.count = count;
        this.gateAt = gateAt;
        this.burstEnd = burstEnd;
    }

    boolean isRunning() {
        return running;
    }

    @Override
    public void initializeState(FunctionInitializationContext context) throws Exception {
        gate = new Object();
        gateCheckpoint = -1;
        positionState = context.getOperatorStateStore().getListState(new ListStateDescriptor<>("position", Types.INT));
        position = 0;
        for (Integer restored : positionState.get()) {
            position = restored;
        }
    }

    @Override
    public void run(SourceContext<SupportRequest> ctx) throws Exception {
        Staging staging = Staging.of(runId);
        while (running && position < count) {
            if (position == gateAt && !staging.crashInjected()) {
                if (!awaitGate()) {
                    return;
                }
                synchronized (ctx.getCheckpointLock()) {
                    while (position <= burstEnd) {
                        ctx.collect(SupportRequest.number(position));
                        position++;
                    }
                    staging.holdUntilCancelled(this);
                }
            } else {
                synchronized (ctx.getCheckpointLock()) {
                    ctx.collect(SupportRequest.number(position));
                    position++;
                }
            }
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
        // Under the checkpoint lock: the position is consistent with what was emitted.
        positionState.update(Collections.singletonList(position));
        synchronized (gate) {
            if (gateCheckpoint < 0 && position == gateAt && Staging.of(runId).answeredBelow(gateAt)) {
                gateCheckpoint = context.getCheckpointId();
            }
        }
    }

    @Override
    public void notifyCheckpointComplete(long checkpointId) {
        synchronized (gate) {
            if (gateCheckpoint >= 0 && checkpointId >= gateCheckpoint) {
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
        Staging.of(runId).wakeUp();
    }
}
