package io.durablejournal.bench;

import io.durablejournal.flinkagents.JournalActionStateStore;
import java.util.concurrent.TimeUnit;
import org.apache.flink.agents.api.Event;
import org.apache.flink.agents.api.InputEvent;
import org.apache.flink.agents.api.context.RunnerContext;
import org.apache.flink.agents.plan.actions.Action;
import org.apache.flink.agents.runtime.actionstate.ActionState;
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
 * Where {@link FlinkAgentsOperatorBenchmark#record}'s fixed cost goes: its store calls before
 * the action runs, timed as growing prefixes (each ends with the prune a checkpoint makes, as
 * {@code record} does), on the same store and the same two paths. What {@code record} adds with
 * {@code -p calls=0} is the action and its completion; each further call is the difference between
 * {@code calls=10} and {@code calls=0}, over ten.
 * <ul>
 *   <li>{@link #lookup}: the lookup that misses (the native store drops the key's later entries);</li>
 *   <li>{@link #lookupAndInitialPut}: then the action's initial state put;</li>
 *   <li>{@link #lookupPutAndServe}: then the get the operator builds its journal over.</li>
 * </ul>
 * Run with {@code gradle --no-daemon jmh -PjmhArgs='-f 1 -wi 4 -i 5 -w 1s -r 1s FlinkAgentsRecordSteps'}.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
public class FlinkAgentsRecordStepsBenchmark {
    private static final String KEY = "user-42";

    @Param({"nativeJournal", "flinkAgents"})
    public String path;

    private JournalActionStateStore store;
    private Action action;
    private InputEvent event;
    private long seq = 1;

    /** The action is never run here; its function only tells the store which path it is on. */
    public static void action(Event event, RunnerContext ctx) {}

    @Setup(Level.Trial)
    public void open() throws Exception {
        store = FlinkAgentsOperatorBenchmark.openStore();
        action = FlinkAgentsOperatorBenchmark.processAction(FlinkAgentsRecordStepsBenchmark.class, path);
        event = new InputEvent("question");
    }

    @TearDown(Level.Trial)
    public void close() {
        store.close();
    }

    @Benchmark
    public ActionState lookup() {
        long current = seq++;
        ActionState missed = store.get(KEY, current, action, event);
        store.pruneState(KEY, current);
        return missed;
    }

    @Benchmark
    public void lookupAndInitialPut() {
        long current = seq++;
        store.get(KEY, current, action, event);
        store.put(KEY, current, action, event, new ActionState(event));
        store.pruneState(KEY, current);
    }

    @Benchmark
    public ActionState lookupPutAndServe() {
        long current = seq++;
        store.get(KEY, current, action, event);
        store.put(KEY, current, action, event, new ActionState(event));
        ActionState served = store.get(KEY, current, action, event);
        store.pruneState(KEY, current);
        return served;
    }
}
