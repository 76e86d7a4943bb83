package io.durablejournal.bench;

import io.durablejournal.CountingCall;
import io.durablejournal.flink.ActionStateStoreFactory;
import io.durablejournal.flinkagents.AttemptEnds;
import io.durablejournal.flinkagents.JournalActionStateStore;
import io.durablejournal.store.FileStoreOptions;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.apache.flink.agents.api.Event;
import org.apache.flink.agents.api.InputEvent;
import org.apache.flink.agents.api.context.RunnerContext;
import org.apache.flink.agents.plan.actions.Action;
import org.apache.flink.agents.runtime.actionstate.ActionState;
import org.apache.flink.agents.runtime.actionstate.ActionStateSerde;
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
import org.openjdk.jmh.infra.BenchmarkParams;

/**
 * Recovery of a restarted Flink Agents task, measured whole: {@code actions} actions were in
 * flight (each had made its {@value #CALLS} durable calls of {@code payloadBytes} and not
 * completed), and the restarted task opens its store, rebuilds it from the checkpoint's marker,
 * and runs every action again on Flink Agents 0.3.1's operator path, every call replayed (none
 * may run, checked after each iteration). Two parts of it, each against Flink Agents 0.3.1:
 * <ul>
 *   <li>{@link #wholeRecovery}: ours opens the adapter's store ({@link JournalActionStateStore}
 *       over the file store, {@code rebuildState} with the marker: the file store reads its
 *       segments back from the page cache), then re-runs the actions, then closes the store.
 *       Theirs rebuilds its store's map from the records its Kafka store would hold, one per
 *       action (a compacted topic: the action's last state; the broker's fetch is not counted),
 *       each decoded by its ActionStateSerde as its {@code rebuildState} does, then re-runs them.</li>
 *   <li>{@link #replay}: the re-run alone, over a store just restored (ours is opened and
 *       rebuilt from the marker before each invocation, outside the measurement; theirs is its
 *       rebuilt map): per action the operator's {@code get}, its journal over the served state
 *       and the action's {@value #CALLS} calls, each answered from the recorded ones. Ours goes
 *       through the adapter's native journal, theirs through its own journal over the state its
 *       map holds.</li>
 * </ul>
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MILLISECONDS)
public class FlinkAgentsRecoveryBenchmark {
    /** Durable calls each in-flight action had made. */
    static final int CALLS = 10;
    private static final long SEQ = 1;

    /** The calls the action makes, read by {@link #action} (one benchmark thread). */
    private static CountingCall<String>[] actionCalls;

    @Param({"100", "1000"})
    public int actions;

    /** Size of each call's result (its JSON) in bytes. */
    @Param({"100", "10240"})
    public int payloadBytes;

    @Param({"nativeJournal", "flinkAgents"})
    public String path;

    private final JobID job = new JobID();
    private final InputEvent event = new InputEvent("question");
    private Action action;
    private Path directory;
    /** Ours: the store directory's checkpoint marker, taken after the actions ran. */
    private List<Object> markers;
    /** Theirs: the record its store holds for each action, by key. */
    private Map<String, byte[]> records;
    /**
     * The store {@link #replay} runs over: ours (restored before each invocation of a replay
     * benchmark: {@link #wholeRecovery} opens the directory itself), or their store's rebuilt map.
     */
    private JournalActionStateStore openStore;
    private Map<String, ActionState> rebuilt;

    /** The agent's action: the {@value #CALLS} durable calls. */
    public static void action(Event event, RunnerContext ctx) throws Exception {
        for (CountingCall<String> call : actionCalls) {
            ctx.durableExecute(call);
        }
    }

    private static String key(int i) {
        return "user-" + i;
    }

    private JournalActionStateStore store() {
        ActionStateStoreFactory files = ActionStateStoreFactory.fileStores(directory.toString(), FileStoreOptions.defaults().osOnly());
        return new JournalActionStateStore(files, 0, 1, 128, 0, job);
    }

    @Setup(Level.Trial)
    public void recordInFlightActions() throws Exception {
        action = FlinkAgentsOperatorBenchmark.processAction(FlinkAgentsRecoveryBenchmark.class, path);
        actionCalls = BenchSupport.calls(CALLS, payloadBytes);
        if ("nativeJournal".equals(path)) {
            directory = Files.createTempDirectory("durable-journal-jmh-whole-recovery-");
            try (JournalActionStateStore store = store()) {
                store.rebuildState(Collections.emptyList());
                for (int i = 0; i < actions; i++) {
                    runAction(store::get, store, key(i), true);
                }
                markers = Collections.singletonList(store.getRecoveryMarker());
            }
        } else {
            records = new HashMap<>();
            Map<String, ActionState> recording = new HashMap<>();
            for (int i = 0; i < actions; i++) {
                recording.put(key(i), new ActionState(event));
                runAction((key, seq, a, e) -> recording.get(key), null, key(i), true);
                records.put(key(i), ActionStateSerde.serialize(recording.get(key(i))));
            }
            rebuilt = rebuild();
        }
        BenchSupport.resetExecutions(actionCalls);
    }

    /**
     * Before each invocation of {@link #replay} and {@link #replayGetOnly}: our store restored
     * afresh, as a restarted task finds it (the answers it reads at the restore are served once).
     */
    @Setup(Level.Invocation)
    public void restoreForReplay(BenchmarkParams params) {
        if (directory == null || !params.getBenchmark().contains(".replay")) {
            return;
        }
        if (openStore != null) {
            openStore.close();
        }
        openStore = store();
        openStore.rebuildState(markers);
    }

    @TearDown(Level.Iteration)
    public void checkNothingRan() {
        BenchSupport.assertNoneExecuted(actionCalls);
    }

    @TearDown(Level.Trial)
    public void close() throws IOException {
        if (openStore != null) {
            openStore.close();
        }
        if (directory != null) {
            BenchSupport.deleteTree(directory);
        }
    }

    @Benchmark
    public void wholeRecovery() throws Exception {
        if (records != null) {
            Map<String, ActionState> store = rebuild();
            replayAll((key, seq, a, e) -> store.get(key), null);
            return;
        }
        try (JournalActionStateStore store = store()) {
            store.rebuildState(markers);
            replayAll(store::get, store);
        }
    }

    @Benchmark
    public void replay() throws Exception {
        if (records != null) {
            replayAll((key, seq, a, e) -> rebuilt.get(key), null);
            return;
        }
        JournalActionStateStore store = openedStore();
        replayAll(store::get, store);
    }

    /**
     * Breakdown of {@link #wholeRecovery}: the store opened and rebuilt from the marker, then
     * closed, nothing run (Flink Agents': its map rebuilt).
     */
    @Benchmark
    public int rebuildOnly() throws Exception {
        if (records != null) {
            return rebuild().size();
        }
        try (JournalActionStateStore store = store()) {
            store.rebuildState(markers);
            return 1;
        }
    }

    /**
     * Breakdown of {@link #replay}: the operator's {@code get} of every action, nothing run (ours
     * then ends the attempt, as {@link #runAction} does, so that each get is the first of a run).
     */
    @Benchmark
    public int replayGetOnly() throws Exception {
        int found = 0;
        for (int i = 0; i < actions; i++) {
            if (records != null) {
                found += rebuilt.get(key(i)) == null ? 0 : 1;
                continue;
            }
            ActionState state = openedStore().get(key(i), SEQ, action, event);
            found += state == null ? 0 : 1;
            AttemptEnds.endWithoutCalls(operatorContext(key(i), state, null, false));
        }
        return found;
    }

    private JournalActionStateStore openedStore() {
        return openStore;
    }

    /** Their store's rebuildState: every record decoded by its ActionStateSerde into its map. */
    private Map<String, ActionState> rebuild() throws Exception {
        Map<String, ActionState> store = new HashMap<>();
        for (Map.Entry<String, byte[]> record : records.entrySet()) {
            store.put(record.getKey(), ActionStateSerde.deserialize(record.getValue()));
        }
        return store;
    }

    private void replayAll(Lookup get, JournalActionStateStore store) throws Exception {
        for (int i = 0; i < actions; i++) {
            runAction(get, store, key(i), false);
        }
    }

    /** A store's get as Flink Agents' operator calls it. */
    private interface Lookup {
        ActionState get(Object key, long seqNum, Action action, Event event) throws Exception;
    }

    /**
     * What Flink Agents' operator does for the action task of {@code key}: the state it is served
     * (on a miss, for a first run, a fresh one put into ours first), its journal over that state,
     * and the action; the attempt ends without completing it, as at a failover.
     */
    private void runAction(Lookup get, JournalActionStateStore store, String key, boolean firstRun) throws Exception {
        ActionState state = get.get(key, SEQ, action, event);
        if (state == null && store != null) {
            store.put(key, SEQ, action, event, new ActionState(event));
            state = store.get(key, SEQ, action, event);
        }
        RunnerContextImpl context = operatorContext(key, state, store, firstRun);
        action.getExec().call(event, context);
        AttemptEnds.releaseJournal(context);
    }

    /** The runner context Flink Agents' operator hands the action of {@code key}, over the state it was served. */
    private RunnerContextImpl operatorContext(String key, ActionState state, JournalActionStateStore store, boolean firstRun) {
        RunnerContextImpl context = new RunnerContextImpl(null, () -> { }, null, null, "jmh");
        context.setDurableExecutionContext(new RunnerContextImpl.DurableExecutionContext(key, SEQ, action, event, state,
                (k, s, a, e, st) -> {
                    if (!firstRun) {
                        throw new IllegalStateException("a replay persisted a state");
                    }
                    if (store != null) {
                        store.put(k, s, a, e, st);
                    }
                }));
        return context;
    }
}
