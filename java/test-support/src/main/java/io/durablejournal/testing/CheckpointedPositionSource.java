package io.durablejournal.testing;

import java.util.Collections;
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
 * A test job's source of numbered records whose position is checkpointed: after a restore it goes
 * on from the restored position, so a record the checkpoint counted as emitted is never emitted
 * again. Subclasses decide when to emit (a test stages its failover around the checkpoints: see
 * {@link #afterSnapshot}, {@link #notifyCheckpointComplete}) and wait on monitors, never on a clock.
 */
public abstract class CheckpointedPositionSource<T> implements SourceFunction<T>, CheckpointedFunction, CheckpointListener {
    private static final long serialVersionUID = 1L;

    private transient ListState<Integer> positionState;
    private volatile int position;
    private volatile boolean running = true;

    @Override
    public final void initializeState(FunctionInitializationContext context) throws Exception {
        positionState = context.getOperatorStateStore().getListState(new ListStateDescriptor<>("position", Types.INT));
        position = 0;
        for (Integer restored : positionState.get()) {
            position = restored;
        }
        afterInitialize();
    }

    /** Runs once the position is restored (or 0): where a subclass makes its transient objects. */
    protected void afterInitialize() {}

    /**
     * Emits record {@code record(i)} for each position {@code i} from the current one up to
     * {@code count} (exclusive), advancing the position with each. Call it holding the checkpoint
     * lock, so that the records and the position move together.
     */
    protected final void emitUpTo(SourceContext<T> ctx, int count, IntFunction<T> record) {
        while (position < count) {
            ctx.collect(record.apply(position));
            position++;
        }
    }

    /** The position: how many records were emitted, counting those of the restored checkpoint. */
    protected final int position() {
        return position;
    }

    /** False once Flink has cancelled the source. */
    public final boolean isRunning() {
        return running;
    }

    @Override
    public final void snapshotState(FunctionSnapshotContext context) throws Exception {
        positionState.update(Collections.singletonList(position));
        afterSnapshot(context.getCheckpointId());
    }

    /** Runs when the position was written into checkpoint {@code checkpointId}. */
    protected void afterSnapshot(long checkpointId) {}

    @Override
    public void notifyCheckpointComplete(long checkpointId) {}

    @Override
    public final void cancel() {
        running = false;
        afterCancel();
    }

    /** Runs when Flink cancels the source: wake up whatever {@link #run} waits on. */
    protected abstract void afterCancel();
}
