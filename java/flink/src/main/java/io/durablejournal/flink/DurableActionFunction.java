package io.durablejournal.flink;

import io.durablejournal.CallSemantics;
import io.durablejournal.DivergencePolicy;
import io.durablejournal.flink.internal.StoreMetrics;
import io.durablejournal.store.ActionStateStore;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.ThreadLocalRandom;
import org.apache.flink.api.common.functions.OpenContext;
import org.apache.flink.api.common.state.CheckpointListener;
import org.apache.flink.api.common.state.ValueState;
import org.apache.flink.api.common.state.ValueStateDescriptor;
import org.apache.flink.api.common.typeinfo.Types;
import org.apache.flink.runtime.state.FunctionInitializationContext;
import org.apache.flink.runtime.state.FunctionSnapshotContext;
import org.apache.flink.streaming.api.checkpoint.CheckpointedFunction;
import org.apache.flink.streaming.api.functions.KeyedProcessFunction;
import org.apache.flink.util.Collector;

/**
 * Runs an {@link AgentAction} for every input record of a keyed stream, with its durable calls
 * journaled in an {@link ActionStateStore}, so that a failover neither loses nor repeats them.
 *
 * <p>Per record: the key's next sequence number comes from keyed state ({@code ValueState<Long>}),
 * and the record's entry in the store is addressed by (key, sequence number, action name, root
 * occurrence of the record). Then:
 * <ul>
 *   <li>a <b>completed</b> entry means the action finished before a failover: its stored output
 *       events are re-emitted and the action does not run;</li>
 *   <li>otherwise the action runs over a journal on that entry (empty on a first run; the calls an
 *       interrupted run recorded on a re-run, which replay instead of running again). Every
 *       journal mutation is one record in the store before the call returns. When the action
 *       returns, its output is stored in {@code outputEvents} (JSON) and the entry marked
 *       completed with one more record, and only then emitted.</li>
 * </ul>
 *
 * <p>Checkpoints: the store's recovery marker goes into operator list state; on restore {@link
 * ActionStateStore#rebuildState} checks the store still holds everything the checkpoint saw (a
 * replaced, wiped or older store directory fails the restore instead of silently re-running
 * journaled calls), and keeps the entries written after it: the journals of the records Flink
 * replays. Entries of records completed before a checkpoint are pruned when that checkpoint
 * completes ({@link #notifyCheckpointComplete}); entries whose notification was lost to a
 * failure are pruned the first time their key is seen after the restart.
 *
 * <p>Parallelism: with a per-subtask store (the file store, {@link
 * ActionStateStoreFactory#fileStores}) the operator must be restored with the parallelism it was
 * checkpointed with, since keyed state does not move store entries along with it; another
 * parallelism is refused at restore. A store that {@linkplain
 * ActionStateStoreFactory#restoresAtAnyParallelism() restores at any parallelism} (the Kafka
 * store) gets the markers of every subtask and loads the journals of the key groups the subtask
 * owns now.
 *
 * <p>Counters are Flink accumulators (see the {@code ACC_*} names), summed over subtasks in the
 * {@code JobExecutionResult}; like all accumulators they count the last attempt of each subtask,
 * which is the one that replays after a failover. The same counts, the store's put latency and
 * what the store holds are also Flink metrics of the operator ({@link StoreMetrics#GROUP}
 * subgroup; docs/flink.md, "Metrics", lists them).
 *
 * <p>An action that throws fails the task; Flink's restart strategy re-runs it over its journal.
 */
public class DurableActionFunction<K, IN, OUT> extends KeyedProcessFunction<K, IN, OUT>
        implements CheckpointedFunction, CheckpointListener {
    private static final long serialVersionUID = 1L;

    /** Action bodies started (first runs and re-runs over a journal). */
    public static final String ACC_ACTIONS_RUN = "durable-journal.actions-run";
    /** Action bodies started over a journal that already held calls of an interrupted run. */
    public static final String ACC_ACTIONS_RESUMED = "durable-journal.actions-resumed";
    /** Completed actions whose stored output was re-emitted without running them. */
    public static final String ACC_ACTIONS_REEMITTED = "durable-journal.actions-re-emitted";
    /** Durable calls answered from the journal instead of running. */
    public static final String ACC_CALLS_REPLAYED = "durable-journal.calls-replayed";

    private final String actionName;
    private final AgentAction<IN, OUT> action;
    private final Class<OUT> outputClass;
    /** Null: no journal, the action's calls just run (for comparison and for opting out). */
    private final ActionStateStoreFactory storeFactory;
    private DivergencePolicy divergencePolicy = DivergencePolicy.WARN;
    private CallSemantics defaultCallSemantics;

    private transient DurableActionRunner<IN, OUT> runner;
    /** The store, its recovery markers and the completed records to prune when a checkpoint completes. */
    private transient SubtaskJournal<K> journal;
    private transient ValueState<Long> nextSeq;
    /** The incarnation of this subtask that last saw the key; see {@link #pruneAfterRestart}. */
    private transient ValueState<Long> keySeenBy;
    private transient long incarnation;
    private transient DurableActionRunner.Counters counters;

    /**
     * @param actionName the action's name, part of every store address
     * @param action what runs for each record
     * @param outputClass to read stored output events back when re-emitting them
     * @param storeFactory opens each subtask's store; null runs without a journal
     */
    public DurableActionFunction(String actionName, AgentAction<IN, OUT> action, Class<OUT> outputClass,
            ActionStateStoreFactory storeFactory) {
        this.actionName = Objects.requireNonNull(actionName, "actionName");
        this.action = Objects.requireNonNull(action, "action");
        this.outputClass = Objects.requireNonNull(outputClass, "outputClass");
        this.storeFactory = storeFactory;
    }

    /** With the embedded file store under {@code storeDirectory}, one subdirectory per subtask. */
    public DurableActionFunction(String actionName, AgentAction<IN, OUT> action, Class<OUT> outputClass, String storeDirectory) {
        this(actionName, action, outputClass, ActionStateStoreFactory.fileStores(storeDirectory));
    }

    /** The same action with no journal: every (re)run runs every call. For comparisons. */
    public static <K, IN, OUT> DurableActionFunction<K, IN, OUT> withoutJournal(String actionName, AgentAction<IN, OUT> action,
            Class<OUT> outputClass) {
        return new DurableActionFunction<>(actionName, action, outputClass, (ActionStateStoreFactory) null);
    }

    /**
     * What a re-run action's journal does when the action makes another call than it recorded at a
     * position ({@link DivergencePolicy}; {@link DivergencePolicy#WARN}, the default, cuts, logs
     * and counts it in the {@code callsDiverged} metric; {@link DivergencePolicy#FAIL} fails the
     * task with a {@link io.durablejournal.NonDeterministicReplayException}).
     *
     * @return this function
     */
    public DurableActionFunction<K, IN, OUT> withDivergencePolicy(DivergencePolicy policy) {
        this.divergencePolicy = Objects.requireNonNull(policy, "policy");
        return this;
    }

    /**
     * The semantics of every durable call of the action that declares none ({@link
     * io.durablejournal.DurableCallable#semantics()}): {@link CallSemantics#AT_MOST_ONCE} makes
     * them at most once (docs/exactly-once.md). Unset (null), they are at least once.
     *
     * @return this function
     */
    public DurableActionFunction<K, IN, OUT> withDefaultCallSemantics(CallSemantics semantics) {
        this.defaultCallSemantics = semantics;
        return this;
    }

    @Override
    public void initializeState(FunctionInitializationContext context) throws Exception {
        // Records of a key run in this subtask only, in order: pruning up to the largest is exact.
        journal = SubtaskJournal.initialize(context, getRuntimeContext(), storeFactory, false);
    }

    @Override
    public void open(OpenContext openContext) throws Exception {
        nextSeq = getRuntimeContext().getState(new ValueStateDescriptor<>("durable-journal-next-seq", Types.LONG));
        keySeenBy = getRuntimeContext().getState(new ValueStateDescriptor<>("durable-journal-key-seen-by", Types.LONG));
        incarnation = ThreadLocalRandom.current().nextLong();
        counters = journal.openCounters(getRuntimeContext());
        runner = new DurableActionRunner<>(actionName, action, outputClass, divergencePolicy)
                .withDefaultCallSemantics(defaultCallSemantics);
    }

    @Override
    public void processElement(IN input, Context ctx, Collector<OUT> out) throws Exception {
        K key = ctx.getCurrentKey();
        Long stored = nextSeq.value();
        long seq = stored == null ? 0 : stored;
        ActionStateStore store = journal.store();
        if (store != null) {
            pruneAfterRestart(store, key, seq);
        }
        DurableActionRunner.Tally tally = new DurableActionRunner.Tally();
        List<OUT> outputs;
        try {
            outputs = runner.run(store, key, seq, input, tally);
        } finally {
            counters.add(tally);
        }
        for (OUT output : outputs) {
            out.collect(output);
        }
        if (store != null) {
            journal.prunes().add(key, seq);
        }
        nextSeq.update(seq + 1);
    }

    /**
     * The first record of a key in this incarnation of the subtask carries the sequence number
     * restored from the checkpoint the job (re)started from, so every entry of the key below it
     * belongs to a record that checkpoint covers, which Flink never replays: pruned here, in case
     * the notification that would have pruned it was lost to the failure.
     */
    private void pruneAfterRestart(ActionStateStore store, K key, long seq) throws Exception {
        Long seenBy = keySeenBy.value();
        if (seenBy != null && seenBy == incarnation) {
            return;
        }
        if (seq > 0) {
            store.pruneState(key, seq - 1);
        }
        keySeenBy.update(incarnation);
    }

    @Override
    public void snapshotState(FunctionSnapshotContext context) throws Exception {
        journal.snapshot(context.getCheckpointId(), getRuntimeContext().getTaskInfo().getNumberOfParallelSubtasks());
    }

    @Override
    public void notifyCheckpointComplete(long checkpointId) {
        journal.checkpointCompleted(checkpointId);
    }

    @Override
    public void close() throws Exception {
        if (journal != null) {
            journal.close();
        }
    }

    @Override
    public String toString() {
        return "DurableActionFunction{" + actionName + ", " + (storeFactory == null ? "no journal" : storeFactory) + "}";
    }
}
