package io.durablejournal.bench;

import io.durablejournal.CountingCall;
import io.durablejournal.flink.ActionStateStoreFactory;
import io.durablejournal.flinkagents.AttemptEnds;
import io.durablejournal.flinkagents.JournalActionStateStore;
import io.durablejournal.flinkagents.JournaledJavaFunction;
import java.util.Collections;
import java.util.concurrent.TimeUnit;
import org.apache.flink.agents.api.Event;
import org.apache.flink.agents.api.InputEvent;
import org.apache.flink.agents.api.context.RunnerContext;
import org.apache.flink.agents.plan.JavaFunction;
import org.apache.flink.agents.plan.actions.Action;
import org.apache.flink.agents.runtime.actionstate.ActionState;
import org.apache.flink.agents.runtime.context.RunnerContextImpl;
import org.apache.flink.api.common.JobID;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;

/**
 * One Java action of {@code calls} durable calls on Flink Agents 0.3.1's operator path, over the
 * adapter's store ({@link JournalActionStateStore} on the native in-memory store, the same for
 * both): the store calls its {@code processActionTaskForKey} makes (get by key text; on a miss
 * put a fresh state and get it again), its journal built over the served state, the action's
 * method called through its function, and the completion (get, mark completed, put). Two paths:
 * <ul>
 *   <li>{@code nativeJournal}: the plan's {@link JournaledJavaFunction}, which installs the native
 *       journal and hands the action the adapter's runner context (each call one delta record);</li>
 *   <li>{@code flinkAgents}, the baseline: Flink Agents' own {@link JavaFunction}, its
 *       {@code RunnerContextImpl} and {@code DurableExecutionContext}, which puts the whole state
 *       through the store after every call (what its {@code DurableExecutionManager} does).</li>
 * </ul>
 * {@link #record}: a fresh action each time (pruned after it completes, as a checkpoint would).
 * {@link #recover}: the action runs again over its recorded, unfinished entry; every call replays
 * (none may run, checked after each iteration) and nothing is written.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
public class FlinkAgentsOperatorBenchmark {
    /** The Flink key (its text is what the store files the entry under). */
    private static final String KEY = "user-42";
    private static final long RECOVERED_SEQ = 1;

    /** The calls the action makes, read by {@link #action} (one benchmark thread). */
    private static CountingCall<String>[] actionCalls;

    @Param({"1", "10", "100"})
    public int calls;

    /** Size of each call's result (its JSON) in bytes. */
    @Param({"100", "10240"})
    public int payloadBytes;

    @Param({"nativeJournal", "flinkAgents"})
    public String path;

    private JournalActionStateStore store;
    private Action action;
    private InputEvent event;
    private long seq = RECOVERED_SEQ;
    private CountingCall<String>[] recorded;

    /** The agent's action: the {@code calls} durable calls. */
    public static void action(Event event, RunnerContext ctx) throws Exception {
        for (CountingCall<String> call : actionCalls) {
            ctx.durableExecute(call);
        }
    }

    /** The adapter's store of subtask 0 of 1 over the native in-memory store, opened as the operator opens it. */
    static JournalActionStateStore openStore() {
        JournalActionStateStore opened = new JournalActionStateStore(ActionStateStoreFactory.inMemory(), 0, 1, 128, 0, new JobID());
        opened.rebuildState(Collections.emptyList());
        return opened;
    }

    /**
     * The action {@code process} of the input event, running the static {@code action(Event,
     * RunnerContext)} of {@code type}: on the native journal for {@code path} {@code
     * nativeJournal}, else through Flink Agents' own function.
     */
    static Action processAction(Class<?> type, String path) throws Exception {
        JavaFunction function = new JavaFunction(type, "action", new Class<?>[] {Event.class, RunnerContext.class});
        return new Action("process", "nativeJournal".equals(path) ? new JournaledJavaFunction(function) : function,
                Collections.singletonList(InputEvent.EVENT_TYPE));
    }

    @Setup(Level.Trial)
    public void open() throws Exception {
        store = openStore();
        action = processAction(FlinkAgentsOperatorBenchmark.class, path);
        event = new InputEvent("question");
        // The entry recover() replays: the action ran its calls and crashed before completing.
        recorded = BenchSupport.calls(calls, payloadBytes);
        actionCalls = recorded;
        runAction(RECOVERED_SEQ, false);
        BenchSupport.resetExecutions(recorded);
        seq = RECOVERED_SEQ + 1;
    }

    @TearDown(Level.Iteration)
    public void checkNothingReplayedRan() {
        BenchSupport.assertNoneExecuted(recorded);
    }

    @TearDown(Level.Trial)
    public void close() {
        store.close();
    }

    @Benchmark
    public void record() throws Exception {
        actionCalls = BenchSupport.calls(calls, payloadBytes);
        long current = seq++;
        runAction(current, true);
        store.pruneState(KEY, current);
    }

    @Benchmark
    public void recover() throws Exception {
        actionCalls = recorded;
        runAction(RECOVERED_SEQ, false);
    }

    /** What Flink Agents' operator does for one action task of the key's input {@code seqNum}. */
    private void runAction(long seqNum, boolean complete) throws Exception {
        ActionState state = servedState(seqNum);
        RunnerContextImpl context = new RunnerContextImpl(null, () -> { }, null, null, "jmh");
        context.setDurableExecutionContext(new RunnerContextImpl.DurableExecutionContext(KEY, seqNum, action, event, state,
                (key, s, a, e, st) -> store.put(key, s, a, e, st)));
        action.getExec().call(event, context);
        if (!complete) {
            // The attempt ends here (as at a failover): the next recover() reads the entry from the store.
            AttemptEnds.releaseJournal(context);
        }
        if (complete) {
            ActionState done = store.get(KEY, seqNum, action, event);
            done.markCompleted();
            store.put(KEY, seqNum, action, event, done);
        }
    }

    /** The state Flink Agents' operator serves an action task: the stored one, or on a miss a fresh one, put and read back. */
    private ActionState servedState(long seqNum) throws Exception {
        ActionState stored = store.get(KEY, seqNum, action, event);
        if (stored != null) {
            return stored;
        }
        store.put(KEY, seqNum, action, event, new ActionState(event));
        return store.get(KEY, seqNum, action, event);
    }
}
