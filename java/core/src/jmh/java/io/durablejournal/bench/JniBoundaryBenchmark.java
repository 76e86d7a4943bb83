package io.durablejournal.bench;

import io.durablejournal.DurableExecutionContext;
import io.durablejournal.RunnerContextImpl;
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
 * JNI boundary: reading a slot's 4-tuple {@code [functionId, status, result, exception]} (a new
 * {@code Object[]}, the id as UTF-8 decoded to a String, a copy of the result payload) against
 * {@link DurableExecutionContext#getCurrentCallIndex()}, the cheapest native call (one int back).
 * All three go through the same Java wrapper (the context's NativeHandle: serialized,
 * closed-checked); the journal holds a recorded 16-call action and is not modified.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
public class JniBoundaryBenchmark {
    /** Slot read by {@link #callResultFieldsAt()}. */
    private static final int SLOT = 8;

    /** Size of each recorded result payload (its JSON) in bytes. */
    @Param({"100", "10240"})
    public int payloadBytes;

    private DurableExecutionContext journal;
    private RunnerContextImpl runner;

    @Setup(Level.Trial)
    public void open() throws Exception {
        journal = new DurableExecutionContext(
                BenchSupport.recordedState(BenchSupport.calls(BenchSupport.REPLAY_CALLS, payloadBytes)), null);
        runner = new RunnerContextImpl(journal);
        byte[] result = (byte[]) runner.getCallResultFieldsAt(SLOT)[2];
        if (result.length != payloadBytes) {
            throw new IllegalStateException("slot " + SLOT + " holds " + result.length + " B, expected " + payloadBytes);
        }
    }

    @TearDown(Level.Trial)
    public void close() {
        journal.close();
    }

    /** Baseline: the cheapest native call. */
    @Benchmark
    public int baselineCurrentCallIndex() {
        return journal.getCurrentCallIndex();
    }

    @Benchmark
    public Object[] currentCallResultFields() {
        return runner.getCurrentCallResultFields();
    }

    @Benchmark
    public Object[] callResultFieldsAt() {
        return runner.getCallResultFieldsAt(SLOT);
    }
}
