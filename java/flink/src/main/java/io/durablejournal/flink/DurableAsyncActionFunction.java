package io.durablejournal.flink;

import io.durablejournal.CallSemantics;
import io.durablejournal.DivergencePolicy;
import io.durablejournal.store.ActionStateStore;
import java.util.ArrayList;
import java.util.List;
import java.util.NavigableMap;
import java.util.Objects;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.flink.api.common.functions.OpenContext;
import org.apache.flink.api.common.functions.RuntimeContext;
import org.apache.flink.api.common.state.CheckpointListener;
import org.apache.flink.api.common.state.ListState;
import org.apache.flink.api.common.state.ListStateDescriptor;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.api.common.typeinfo.Types;
import org.apache.flink.api.java.tuple.Tuple2;
import org.apache.flink.api.java.typeutils.EitherTypeInfo;
import org.apache.flink.api.java.typeutils.ResultTypeQueryable;
import org.apache.flink.api.java.typeutils.TupleTypeInfo;
import org.apache.flink.runtime.state.FunctionInitializationContext;
import org.apache.flink.runtime.state.FunctionSnapshotContext;
import org.apache.flink.streaming.api.checkpoint.CheckpointedFunction;
import org.apache.flink.streaming.api.functions.async.CollectionSupplier;
import org.apache.flink.streaming.api.functions.async.ResultFuture;
import org.apache.flink.streaming.api.functions.async.RichAsyncFunction;
import org.apache.flink.types.Either;

/**
 * The asynchronous counterpart of {@link DurableActionFunction}: runs an {@link AgentAction} per
 * record on threads of its own, so an action can stay in flight while checkpoints complete, with
 * its durable calls journaled in the subtask's {@link ActionStateStore}. Build it with {@link
 * DurableAsyncActions}, which puts it in Flink's async operator ({@code
 * AsyncDataStream.orderedWait}) between a keyed step that numbers each key's records ({@link
 * Sequenced}) and the step that forwards its outputs ({@link EmittedRecords}).
 *
 * <p>Checkpoints reach this function because Flink's async operator is an {@code
 * AbstractUdfStreamOperator}, which forwards {@link CheckpointedFunction} and {@link
 * CheckpointListener} to its user function (checked in Flink 2.2.0's {@code AsyncWaitOperator}):
 * the store's recovery marker goes into operator list state, a restore checks it ({@link
 * ActionStateStore#rebuildState}), and completed checkpoints prune.
 *
 * <p>Across a failover: the async operator checkpoints the records still in flight and runs them
 * again after the restore. The store keeps every journal record written after the checkpoint's
 * recovery marker, so a record that was in flight across that checkpoint resumes over all the
 * calls it made, the ones before the checkpoint as well as those after it; a record whose action
 * completed re-emits its stored output without running (see {@link DurableActionRunner#run}).
 *
 * <p>Concurrency: up to {@code maxInFlight} actions run at once, on this function's executor (one
 * thread per action in flight; shut down in {@link #close()}). Records of one key run one after
 * the other, in order: a key's store entries are written in sequence order (a miss in the store
 * drops the key's later entries), and an agent sees its key's events in order as in Flink Agents.
 * Each action gets its own {@code DurableExecutionContext}, used only by the thread running that
 * action; the store is shared by all of them (it is thread-safe). Results, counters and pruning
 * are handled on the task thread (the result suppliers run there).
 *
 * <p>Pruning: an entry can go once no checkpoint can replay its record. That is not when its
 * action completes, but when its result has left the async operator's queue (see {@link
 * EmissionLedger}). Each checkpoint records the entries confirmed emitted before it, prunes them
 * when it completes, and keeps them in its state so that a restore from it prunes them in case
 * that notification was lost to the failure.
 *
 * <p>A failing action fails the task from the task thread (its result supplier rethrows), so the
 * record is never emitted and stays in the checkpointed queue; Flink's restart strategy re-runs it
 * over its journal. There is no timeout: an action may block for as long as its calls do.
 *
 * <p>As for {@link DurableActionFunction}: a per-subtask store is restored at the parallelism it
 * was checkpointed with, a store that restores at any parallelism at any; a fresh start refuses a
 * store holding entries of an earlier run; counters are Flink accumulators with the {@code
 * DurableActionFunction.ACC_*} names. After a rescale Flink hands the restored in-flight records
 * to the new subtasks round robin, so a record may run in a subtask that does not own its key
 * (its store loads that key group); with such a store, entries are therefore pruned one by one
 * ({@link io.durablejournal.store.ActionStateStore#pruneStateAt}), never up to a sequence number.
 */
public class DurableAsyncActionFunction<K, IN, OUT> extends RichAsyncFunction<Sequenced<K, IN>, Either<OUT, Long>>
        implements CheckpointedFunction, CheckpointListener, ResultTypeQueryable<Either<OUT, Long>> {
    private static final long serialVersionUID = 1L;
    /** How long {@link #close()} waits for actions to react to the interrupt before closing the store. */
    private static final long CLOSE_WAIT_SECONDS = 10;

    private final String pipeline;
    private final String actionName;
    private final AgentAction<IN, OUT> action;
    private final TypeInformation<OUT> outputType;
    private final TypeInformation<K> keyType;
    /** Null: no journal, the action's calls just run (for comparison and for opting out). */
    private final ActionStateStoreFactory storeFactory;
    private final int maxInFlight;
    private final DivergencePolicy divergencePolicy;
    /** The semantics of the action's durable calls that declare none; null: at least once. */
    private CallSemantics defaultCallSemantics;

    /** The runtime context before RichAsyncFunction restricts it; see {@link #setRuntimeContext}. */
    private transient RuntimeContext taskContext;
    private transient DurableActionRunner<IN, OUT> runner;
    private transient DurableActionRunner.Counters counters;
    /** The store, its recovery markers and the records confirmed emitted, pruned when a checkpoint taken after that completes. */
    private transient SubtaskJournal<K> journal;
    /** Entries (key, largest sequence number) confirmed emitted and not pruned yet at the snapshot. */
    private transient ListState<Tuple2<K, Long>> prunableState;
    private transient ExecutorService executor;
    private transient EmissionLedger ledger;
    /** Per key, the last action started or queued; the key's next record runs after it. */
    private transient ConcurrentHashMap<K, CompletableFuture<Boolean>> lastOfKey;

    // Task thread only:
    private transient long nextOrdinal;
    /** Records handed to the executor and not yet confirmed emitted: by ordinal, their store entry (key, sequence number). */
    private transient NavigableMap<Long, Tuple2<K, Long>> unconfirmed;

    DurableAsyncActionFunction(String pipeline, String actionName, AgentAction<IN, OUT> action, TypeInformation<OUT> outputType,
            TypeInformation<K> keyType, ActionStateStoreFactory storeFactory, int maxInFlight, DivergencePolicy divergencePolicy) {
        if (maxInFlight < 1) {
            throw new IllegalArgumentException("maxInFlight must be at least 1: " + maxInFlight);
        }
        this.pipeline = Objects.requireNonNull(pipeline, "pipeline");
        this.actionName = Objects.requireNonNull(actionName, "actionName");
        this.action = Objects.requireNonNull(action, "action");
        this.outputType = Objects.requireNonNull(outputType, "outputType");
        this.keyType = Objects.requireNonNull(keyType, "keyType");
        this.storeFactory = storeFactory;
        this.maxInFlight = maxInFlight;
        this.divergencePolicy = Objects.requireNonNull(divergencePolicy, "divergencePolicy");
    }

    /**
     * The semantics of every durable call of the action that declares none: {@link
     * CallSemantics#AT_MOST_ONCE} makes them at most once (docs/exactly-once.md). Null (the
     * default): at least once.
     *
     * @return this function
     */
    DurableAsyncActionFunction<K, IN, OUT> withDefaultCallSemantics(CallSemantics semantics) {
        this.defaultCallSemantics = semantics;
        return this;
    }

    /**
     * Keeps the unrestricted context for the accumulators: RichAsyncFunction refuses them because
     * async callbacks usually run on other threads, and accumulators are not thread-safe. Here
     * they are only added to on the task thread (in the result suppliers), as in any operator.
     */
    @Override
    public void setRuntimeContext(RuntimeContext runtimeContext) {
        this.taskContext = runtimeContext;
        super.setRuntimeContext(runtimeContext);
    }

    @Override
    public void initializeState(FunctionInitializationContext context) throws Exception {
        // Entry by entry when rescalable: a rescaled restore may run older records of a key in other subtasks.
        boolean pruneEntryByEntry = storeFactory != null && storeFactory.restoresAtAnyParallelism();
        // Union state when rescalable: after a rescale the owner of each key gets its prunable entries.
        ListStateDescriptor<Tuple2<K, Long>> prunable = new ListStateDescriptor<>(
                pruneEntryByEntry ? "durable-journal-prunable-all" : "durable-journal-prunable",
                new TupleTypeInfo<Tuple2<K, Long>>(keyType, Types.LONG));
        prunableState = pruneEntryByEntry
                ? context.getOperatorStateStore().getUnionListState(prunable)
                : context.getOperatorStateStore().getListState(prunable);
        unconfirmed = new TreeMap<>();
        journal = SubtaskJournal.initialize(context, getRuntimeContext(), storeFactory, pruneEntryByEntry);
        if (journal.store() != null && context.isRestored()) {
            // Emitted before the restored checkpoint, so never replayed from it: their prune may
            // have been lost with the failure.
            journal.prunes().pruneNow(prunableState.get(), journal.store());
        }
    }

    @Override
    public void open(OpenContext openContext) throws Exception {
        runner = new DurableActionRunner<>(actionName, action, outputType.getTypeClass(), divergencePolicy)
                .withDefaultCallSemantics(defaultCallSemantics);
        counters = journal.openCounters(taskContext);
        ledger = EmissionLedger.acquire(pipeline, getRuntimeContext());
        lastOfKey = new ConcurrentHashMap<>();
        executor = Executors.newFixedThreadPool(maxInFlight, threads(getRuntimeContext()));
    }

    private ThreadFactory threads(RuntimeContext context) {
        String prefix = "durable-journal " + actionName + " (" + context.getTaskInfo().getIndexOfThisSubtask() + "/"
                + context.getTaskInfo().getNumberOfParallelSubtasks() + ") #";
        ClassLoader userCode = context.getUserCodeClassLoader();
        AtomicInteger count = new AtomicInteger();
        return runnable -> {
            Thread thread = new Thread(runnable, prefix + count.incrementAndGet());
            thread.setDaemon(true);
            thread.setContextClassLoader(userCode);
            return thread;
        };
    }

    @Override
    public void asyncInvoke(Sequenced<K, IN> record, ResultFuture<Either<OUT, Long>> result) {
        long ordinal = nextOrdinal++;
        K key = record.key();
        // Read once: a thread still running after close() must fail on the closed store, never
        // find no store and run its calls without a journal.
        ActionStateStore store = journal.store();
        if (store != null) {
            collectConfirmed();
            unconfirmed.put(ordinal, Tuple2.of(key, record.seq()));
        }
        CompletableFuture<Boolean> previous = lastOfKey.get(key);
        CompletableFuture<Boolean> mine = (previous != null ? previous : CompletableFuture.completedFuture(true))
                .handleAsync((previousSucceeded, previousError) -> previousError == null && previousSucceeded
                        ? runAndComplete(store, record, ordinal, result)
                        : refuse(record, result), executor);
        lastOfKey.put(key, mine);
        mine.whenComplete((succeeded, error) -> lastOfKey.remove(key, mine));
    }

    /** Runs one record on an executor thread and completes its result; true when it succeeded. */
    private boolean runAndComplete(ActionStateStore store, Sequenced<K, IN> record, long ordinal,
            ResultFuture<Either<OUT, Long>> result) {
        DurableActionRunner.Tally tally = new DurableActionRunner.Tally();
        List<OUT> outputs;
        try {
            outputs = runner.run(store, record.key(), record.seq(), record.input(), tally);
        } catch (Throwable failure) {
            complete(result, () -> {
                counters.add(tally);
                throw rethrowable(failure);
            });
            return false;
        }
        complete(result, () -> {
            counters.add(tally);
            List<Either<OUT, Long>> emitted = new ArrayList<>(outputs.size() + 1);
            for (OUT output : outputs) {
                emitted.add(Either.Left(output));
            }
            // Last, so that seeing it downstream means the record's outputs have all left the queue.
            emitted.add(Either.Right(ordinal));
            return emitted;
        });
        return true;
    }

    /** An earlier record of the key failed (and is failing the task): this one does not run. */
    private boolean refuse(Sequenced<K, IN> record, ResultFuture<Either<OUT, Long>> result) {
        complete(result, () -> {
            throw new IllegalStateException("record " + record.seq() + " of key " + record.key()
                    + " did not run: an earlier record of its key failed");
        });
        return false;
    }

    /**
     * The supplier runs on the task thread: a failure thrown there fails the task at once, before
     * the record could leave the queue (completeExceptionally would emit it empty and fail the
     * task from another thread, leaving room for a checkpoint that no longer holds the record).
     */
    private static <T> void complete(ResultFuture<T> result, CollectionSupplier<T> supplier) {
        try {
            result.complete(supplier);
        } catch (RejectedExecutionException taskClosing) {
            // The task is shutting down: this record is in its last checkpoint, or will be re-read.
        }
    }

    private static Exception rethrowable(Throwable failure) {
        if (failure instanceof Error) {
            throw (Error) failure;
        }
        return failure instanceof Exception ? (Exception) failure : new Exception(failure);
    }

    /** Moves the records the ledger has confirmed emitted from {@link #unconfirmed} to the prunable. */
    private void collectConfirmed() {
        NavigableMap<Long, Tuple2<K, Long>> confirmed = unconfirmed.headMap(ledger.confirmedThrough(), true);
        confirmed.values().forEach(entry -> journal.prunes().add(entry.f0, entry.f1));
        confirmed.clear();
    }

    @Override
    public void snapshotState(FunctionSnapshotContext context) throws Exception {
        if (journal.store() != null) {
            // Called on the task thread right before the async operator writes its queue to the
            // same checkpoint, so what is confirmed here is not in that queue.
            collectConfirmed();
        }
        journal.snapshot(context.getCheckpointId(), getRuntimeContext().getTaskInfo().getNumberOfParallelSubtasks());
        // Empty without a journal: nothing is ever prunable then.
        prunableState.update(journal.prunes().pending());
    }

    @Override
    public void notifyCheckpointComplete(long checkpointId) {
        // A key's later records in this subtask (in flight or not started) have larger sequence
        // numbers: the output is ordered and the key's records run in order. After a rescale an
        // older record of the key may still run in another subtask: then each entry goes alone.
        journal.checkpointCompleted(checkpointId);
    }

    @Override
    public void close() throws Exception {
        try {
            if (executor != null) {
                // Interrupts actions still running (a failover or cancellation): their journals
                // keep what they recorded, and their records are in flight in the checkpoint.
                executor.shutdownNow();
                executor.awaitTermination(CLOSE_WAIT_SECONDS, TimeUnit.SECONDS);
                executor = null;
            }
        } finally {
            if (ledger != null) {
                ledger.release();
                ledger = null;
            }
            if (journal != null) {
                journal.close();
            }
        }
    }

    @Override
    public TypeInformation<Either<OUT, Long>> getProducedType() {
        return new EitherTypeInfo<>(outputType, Types.LONG);
    }

    @Override
    public String toString() {
        return "DurableAsyncActionFunction{" + actionName + ", " + (storeFactory == null ? "no journal" : storeFactory)
                + ", maxInFlight=" + maxInFlight + "}";
    }
}
