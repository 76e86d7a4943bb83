package io.durablejournal.bench;

import io.durablejournal.bench.BenchSupport.Persistence;
import io.durablejournal.bench.BenchSupport.Recorder;
import java.util.concurrent.TimeUnit;
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
 * Record path with persistence: one fresh action per invocation (open its journal from the
 * initial state, {@code calls} durableExecute calls returning 1 KB results, mark completed,
 * close), persisted four ways (see {@link Persistence}): not at all (floor), by a Java
 * ActionStatePersister that serializes the whole ActionState each time (Flink Agents' approach,
 * in our runtime), by the native in-memory store, and by the native file store with group commit
 * in a temporary directory; and the baseline, Flink Agents 0.3.1 itself (its RunnerContextImpl,
 * its ActionStateSerde on every persist). Bytes written per action are printed by {@link
 * BenchReport}, not timed.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
public class RecordBenchmark {
    /** durableExecute calls per action. */
    @Param({"10", "100"})
    public int calls;

    @Param({"none", "wholeState", "memoryStore", "fileStore", "flinkAgents"})
    public Persistence persistence;

    private Recorder recorder;

    @Setup(Level.Trial)
    public void open() throws Exception {
        recorder = new Recorder(persistence, calls);
    }

    @TearDown(Level.Trial)
    public void close() throws Exception {
        recorder.close();
    }

    @Benchmark
    public Object action() throws Exception {
        return recorder.runAction();
    }
}
