package io.durablejournal.flink;

import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.durablejournal.ActionState;
import io.durablejournal.CallSemantics;
import io.durablejournal.DivergencePolicy;
import io.durablejournal.DurableExecutionContext;
import io.durablejournal.RunnerContextImpl;
import io.durablejournal.flink.internal.SubtaskStores;
import io.durablejournal.store.ActionStateStore;
import io.durablejournal.store.EventIdentity;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Objects;
import org.apache.flink.api.common.TaskInfo;
import org.apache.flink.api.common.accumulators.LongCounter;
import org.apache.flink.api.common.functions.RuntimeContext;

/**
 * What {@link DurableActionFunction} and {@link DurableAsyncActionFunction} share: opening a
 * subtask's store (checking it against the restored recovery markers, or refusing entries of an
 * earlier run on a fresh start), and running the action for one input record over its entry in
 * the store.
 *
 * <p>{@link #run} may be called from several threads at once (the async function runs actions
 * concurrently on one store): the store is thread-safe, and each call opens its own {@link
 * DurableExecutionContext}, used only by the thread that runs that action.
 */
final class DurableActionRunner<IN, OUT> {
    private static final ObjectMapper MAPPER = new ObjectMapper()
            .configure(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES, false);

    private final String actionName;
    private final AgentAction<IN, OUT> action;
    private final Class<OUT> outputClass;
    private final DivergencePolicy divergencePolicy;
    /** The semantics of calls that declare none; null: at least once. */
    private CallSemantics defaultCallSemantics;

    DurableActionRunner(String actionName, AgentAction<IN, OUT> action, Class<OUT> outputClass, DivergencePolicy divergencePolicy) {
        this.actionName = Objects.requireNonNull(actionName, "actionName");
        this.action = Objects.requireNonNull(action, "action");
        this.outputClass = Objects.requireNonNull(outputClass, "outputClass");
        this.divergencePolicy = Objects.requireNonNull(divergencePolicy, "divergencePolicy");
    }

    /** The job's default semantics of durable calls (see {@link RunnerContextImpl#setDefaultCallSemantics}). */
    DurableActionRunner<IN, OUT> withDefaultCallSemantics(CallSemantics semantics) {
        this.defaultCallSemantics = semantics;
        return this;
    }

    /**
     * Runs the action for record {@code seq} of {@code key} and returns what to emit (empty for a
     * null result). With no store the action just runs. Otherwise, by its entry in the store:
     * <ul>
     *   <li>completed (the action finished before a failover): its stored output events are
     *       returned and the action does not run;</li>
     *   <li>else the action runs over a journal on that entry (empty on a first run; the calls of
     *       an interrupted run on a re-run, which replay instead of running again). Its output is
     *       stored in {@code outputEvents} (JSON) and the entry marked completed, in one store
     *       record, before this method returns it.</li>
     * </ul>
     * {@code tally} is updated even when the action throws.
     */
    List<OUT> run(ActionStateStore store, Object key, long seq, IN input, Tally tally) throws Exception {
        if (store == null) {
            tally.actionsRun++;
            RunnerContextImpl calls = new RunnerContextImpl(null);
            try {
                return outputs(action.run(input, calls));
            } finally {
                tally.addCalls(calls);
            }
        }
        EventIdentity event = EventIdentity.rootOccurrence(key, seq);
        ActionState recorded = store.get(key, seq, actionName, event);
        if (recorded != null && recorded.isCompleted()) {
            tally.actionsReemitted++;
            List<OUT> stored = new ArrayList<>();
            // From the recorded text, not a tree: the output comes back exactly as it was written.
            for (String json : recorded.getOutputEventsJson()) {
                stored.add(MAPPER.readValue(json, outputClass));
            }
            return stored;
        }
        if (recorded != null && !recorded.getCallResults().isEmpty()) {
            tally.actionsResumed++;
        }
        tally.actionsRun++;
        OUT result;
        ActionState finished;
        try (DurableExecutionContext journal = journalOver(store, recorded, key, seq, event, input)) {
            journal.setDivergencePolicy(divergencePolicy);
            RunnerContextImpl calls = new RunnerContextImpl(journal);
            calls.setDefaultCallSemantics(defaultCallSemantics);
            try {
                result = action.run(input, calls);
            } finally {
                tally.addCalls(calls);
            }
            finished = journal.getActionState();
        }
        if (result != null) {
            finished.addOutputEvent(MAPPER.valueToTree(result));
        }
        if (store.retainsCompleted()) {
            // What a replay runs the action on (docs/replay.md); without retention the bytes stay as they were.
            finished.setTaskEvent(MAPPER.valueToTree(input));
        }
        finished.markCompleted();
        long putStart = System.nanoTime();
        store.put(key, seq, actionName, event, finished);
        tally.putNanos = System.nanoTime() - putStart;
        return outputs(result);
    }

    /**
     * The journal of the action's run: on a re-run, one that answers the recorded calls from the
     * entry just read and opens the store's journal only at the first call that is not a recorded
     * hit (recovery does no native work for the calls it replays); on a first run, the store's.
     */
    private DurableExecutionContext journalOver(ActionStateStore store, ActionState recorded, Object key, long seq, EventIdentity event,
            IN input) {
        if (recorded == null || recorded.getCallResults().isEmpty()) {
            return store.openContext(key, seq, actionName, event, initialState(store, recorded, input));
        }
        return DurableExecutionContext.resuming(recorded, () -> store.openContext(key, seq, actionName, event, null));
    }

    /**
     * A retaining store's entries carry their input record from the start, so a journal in flight
     * can be replayed too (docs/replay.md); otherwise the entry starts as it always did.
     */
    private static ActionState initialState(ActionStateStore store, ActionState recorded, Object input) {
        if (recorded != null || !store.retainsCompleted()) {
            return null; // openContext keeps a stored entry as it is
        }
        ActionState initial = new ActionState();
        initial.setTaskEvent(MAPPER.valueToTree(input));
        return initial;
    }

    private static <OUT> List<OUT> outputs(OUT result) {
        return result == null ? Collections.emptyList() : Collections.singletonList(result);
    }

    /**
     * Opens the store of this subtask ({@link SubtaskStores#open}) with the checkpoint's markers
     * when it is restored, after refusing a restore at a parallelism its stores cannot follow.
     */
    static ActionStateStore openStore(ActionStateStoreFactory factory, RuntimeContext context, boolean restored,
            RecoveryMarkerState recoveryMarkers) throws Exception {
        TaskInfo task = context.getTaskInfo();
        List<byte[]> markers = restored
                ? recoveryMarkers.restored(factory, task.getNumberOfParallelSubtasks())
                : Collections.emptyList();
        return SubtaskStores.open(factory, SubtaskScope.of(task, context.getJobInfo().getJobId(), restored), markers);
    }

    /** What running a record did; confined to one thread, then added to the {@link Counters}. */
    static final class Tally {
        long actionsRun;
        long actionsResumed;
        long actionsReemitted;
        long callsReplayed;
        long callsExecuted;
        long callsReconciled;
        long callsDiverged;
        /** How long the put of the completed action took, or -1 when there was none. */
        long putNanos = -1;

        void addCalls(RunnerContextImpl calls) {
            callsReplayed += calls.getReplayedCallCount();
            callsExecuted += calls.getExecutedCallCount();
            callsReconciled += calls.getReconciledCallCount();
            callsDiverged += calls.getDivergedCallCount();
        }
    }

    /**
     * The Flink accumulators (names {@code DurableActionFunction.ACC_*}), summed over subtasks in
     * the {@code JobExecutionResult}, and the operator's metrics ({@link JournalMetrics}). Neither
     * is thread-safe: add to them on the task thread only.
     */
    static final class Counters {
        private final LongCounter actionsRun = new LongCounter();
        private final LongCounter actionsResumed = new LongCounter();
        private final LongCounter actionsReemitted = new LongCounter();
        private final LongCounter callsReplayed = new LongCounter();
        private final JournalMetrics metrics;

        /**
         * @param context where the accumulators go; its metric group gets the metrics
         * @param store the subtask's store, whose numbers the metrics report (null: no journal)
         */
        Counters(RuntimeContext context, ActionStateStore store) {
            metrics = JournalMetrics.register(context.getMetricGroup(), store);
            context.addAccumulator(DurableActionFunction.ACC_ACTIONS_RUN, actionsRun);
            context.addAccumulator(DurableActionFunction.ACC_ACTIONS_RESUMED, actionsResumed);
            context.addAccumulator(DurableActionFunction.ACC_ACTIONS_REEMITTED, actionsReemitted);
            context.addAccumulator(DurableActionFunction.ACC_CALLS_REPLAYED, callsReplayed);
        }

        void add(Tally tally) {
            actionsRun.add(tally.actionsRun);
            actionsResumed.add(tally.actionsResumed);
            actionsReemitted.add(tally.actionsReemitted);
            callsReplayed.add(tally.callsReplayed);
            metrics.add(tally);
        }

        /** See {@link JournalMetrics#storeClosing()}. */
        void storeClosing() {
            metrics.storeClosing();
        }
    }
}
