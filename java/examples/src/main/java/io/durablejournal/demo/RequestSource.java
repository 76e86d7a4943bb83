package io.durablejournal.demo;

import java.util.Collections;
import java.util.Map;
import java.util.TreeMap;
import java.util.function.IntFunction;
import org.apache.flink.api.common.state.CheckpointListener;
import org.apache.flink.api.common.state.ListState;
import org.apache.flink.api.common.state.ListStateDescriptor;
import org.apache.flink.api.common.typeinfo.Types;
import org.apache.flink.runtime.state.FunctionInitializationContext;
import org.apache.flink.runtime.state.FunctionSnapshotContext;
import org.apache.flink.streaming.api.checkpoint.CheckpointedFunction;
import org.apache.flink.streaming.api.functions.source.legacy.SourceFunction;

/**
 * A replayable stream of {@code count} requests, {@code req-00} ... (by default {@link #request}:
 * users {@code user-<i/4>}, so four consecutive requests share a user and one key sees several
 * sequence numbers). Its position is checkpointed, so after a restore it replays every request
 * after the checkpoint. Both operators' demo jobs read it.
 *
 * <p>It stages a failover deterministically, with no timing assumptions: before emitting request
 * {@code gateAt} it waits until a checkpoint that covers every earlier request has completed
 * (notified through {@link #notifyCheckpointComplete}; what "covers" means beyond the position is
 * the run's {@link FailoverStaging}); then it emits requests {@code gateAt} through {@code
 * burstEnd} under one hold of the checkpoint lock, so no checkpoint barrier falls between them,
 * and then waits again, for a checkpoint that covers the burst, before emitting anything else. A
 * crash while processing {@code burstEnd} therefore restores exactly the first checkpoint:
 * requests {@code gateAt .. burstEnd-1} completed after it (their answers are in the journal
 * store), {@code burstEnd} was in flight, and no later request had been emitted. A negative
 * {@code gateAt} stages nothing. Waits are on monitors, woken by checkpoints and {@link
 * #cancel()}; nothing sleeps.
 */
public class RequestSource<R extends Request> implements SourceFunction<R>, CheckpointedFunction, CheckpointListener {
    private static final long serialVersionUID = 1L;

    /** Request {@code i} of a run (serializable: Flink ships the source to its task). */
    public interface Numbering<R> extends IntFunction<R>, java.io.Serializable {}

    private final Numbering<R> numbering;
    private final int count;
    private final int gateAt;
    private final int burstEnd;
    private final FailoverStaging staging;

    private transient ListState<Integer> positionState;
    private transient Object gate;
    /** Requests below this position are covered by a completed (or the restored) checkpoint. */
    private transient int coveredPosition;
    private transient Map<Long, Integer> positionAtCheckpoint;
    private volatile int position;
    private volatile boolean running = true;

    /** Our operator's source: {@link #request} numbering, {@link FailoverStaging#CHECKPOINTS_ONLY}. */
    public static RequestSource<Request> of(int count, int gateAt, int burstEnd) {
        return new RequestSource<>(RequestSource::request, count, gateAt, burstEnd, FailoverStaging.CHECKPOINTS_ONLY);
    }

    /** @param gateAt negative: no gate (requests are emitted as fast as they are taken) */
    public RequestSource(Numbering<R> numbering, int count, int gateAt, int burstEnd, FailoverStaging staging) {
        if (gateAt >= 0 && (burstEnd < gateAt || burstEnd >= count)) {
            throw new IllegalArgumentException("need gateAt <= burstEnd < count: " + gateAt + ", " + burstEnd + ", " + count);
        }
        this.numbering = numbering;
        this.count = count;
        this.gateAt = gateAt;
        this.burstEnd = burstEnd;
        this.staging = staging;
    }

    public static Request request(int i) {
        return new Request(requestId(i), "user-" + (i / 4), "question " + i);
    }

    public static String requestId(int i) {
        return String.format("req-%02d", i);
    }

    /** False once cancelled. */
    public boolean isRunning() {
        return running;
    }

    @Override
    public void initializeState(FunctionInitializationContext context) throws Exception {
        gate = new Object();
        positionAtCheckpoint = new TreeMap<>();
        positionState = context.getOperatorStateStore().getListState(new ListStateDescriptor<>("position", Types.INT));
        position = 0;
        for (Integer restored : positionState.get()) {
            position = restored;
        }
        coveredPosition = position;
    }

    @Override
    public void run(SourceContext<R> ctx) throws Exception {
        while (running && position < count) {
            if (position == gateAt && staging.gateActive()) {
                if (!awaitCheckpointCovering(gateAt)) {
                    return;
                }
                synchronized (ctx.getCheckpointLock()) {
                    while (position <= burstEnd) {
                        emitNext(ctx);
                    }
                    staging.afterBurst(this);
                }
                if (!awaitCheckpointCovering(burstEnd + 1)) {
                    return;
                }
            } else {
                synchronized (ctx.getCheckpointLock()) {
                    emitNext(ctx);
                }
            }
        }
        if (running) {
            staging.afterLast(this);
        }
    }

    private void emitNext(SourceContext<R> ctx) {
        ctx.collect(numbering.apply(position));
        position++;
    }

    private boolean awaitCheckpointCovering(int target) throws InterruptedException {
        synchronized (gate) {
            while (running && coveredPosition < target) {
                gate.wait();
            }
            return running;
        }
    }

    @Override
    public void snapshotState(FunctionSnapshotContext context) throws Exception {
        // Called under the checkpoint lock: position is consistent with what was emitted.
        positionState.update(Collections.singletonList(position));
        synchronized (gate) {
            if (staging.snapshotCovers(position)) {
                positionAtCheckpoint.put(context.getCheckpointId(), position);
            }
        }
    }

    @Override
    public void notifyCheckpointComplete(long checkpointId) {
        synchronized (gate) {
            positionAtCheckpoint.entrySet().removeIf(e -> {
                if (e.getKey() <= checkpointId) {
                    coveredPosition = Math.max(coveredPosition, e.getValue());
                    return true;
                }
                return false;
            });
            gate.notifyAll();
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
        staging.cancelled();
    }
}
