package io.durablejournal.bench;

import com.fasterxml.jackson.databind.ObjectMapper;
import io.durablejournal.ActionState;
import io.durablejournal.DurableExecutionContext;
import io.durablejournal.RunnerContextImpl;
import io.durablejournal.CountingCall;
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
import org.openjdk.jmh.infra.Blackhole;

/**
 * Replay path: a 16-call action re-run over its recorded journal, every {@link
 * RunnerContextImpl#durableExecute} a hit (the native journal decides, the 4-tuple crosses JNI,
 * Jackson decodes the result), against the same 16 callables run by {@code new
 * RunnerContextImpl(null)} (no journal: each call just runs).
 *
 * <p>A replay consumes the journal (the call index only moves forward), so every invocation gets
 * a fresh {@link DurableExecutionContext} over the recorded ActionState, made and closed outside
 * the timed region ({@link Level#Invocation}; its timestamping costs some tens of ns against an
 * invocation of microseconds). The baselines use no per-invocation state and are not affected.
 *
 * <p>A second reference, {@link #decodeOnly}, decodes the 16 recorded result payloads with Jackson
 * alone (what {@code durableExecute} does with a hit once it has the bytes), to tell the
 * journal's JNI and native share of a replay from the JSON decoding.
 */
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
public class ReplayBenchmark {
    private static final ObjectMapper MAPPER = new ObjectMapper();

    @State(Scope.Thread)
    public static class Action {
        /** Size of each recorded result payload (its JSON) in bytes. */
        @Param({"100", "10240"})
        public int payloadBytes;

        CountingCall<String>[] calls;
        ActionState recorded;
        byte[][] payloads;
        RunnerContextImpl noContext;

        @Setup(Level.Trial)
        public void record() throws Exception {
            calls = BenchSupport.calls(BenchSupport.REPLAY_CALLS, payloadBytes);
            recorded = BenchSupport.recordedState(calls);
            payloads = new byte[calls.length][];
            for (int i = 0; i < calls.length; i++) {
                payloads[i] = recorded.getCallResults().get(i).getResultPayload();
            }
            noContext = new RunnerContextImpl(null);
        }
    }

    @State(Scope.Thread)
    public static class Recovery {
        DurableExecutionContext journal;
        RunnerContextImpl runner;

        @Setup(Level.Invocation)
        public void open(Action action) {
            journal = new DurableExecutionContext(action.recorded, null);
            runner = new RunnerContextImpl(journal);
        }

        @TearDown(Level.Invocation)
        public void close() {
            int replayed = journal.getReplayedCallCount();
            journal.close();
            if (replayed != BenchSupport.REPLAY_CALLS) {
                throw new IllegalStateException("expected " + BenchSupport.REPLAY_CALLS + " replayed calls, got " + replayed);
            }
        }
    }

    /** Baseline: the 16 callables run without a journal. */
    @Benchmark
    public void baselineNoContext(Action action, Blackhole bh) throws Exception {
        RunnerContextImpl runner = action.noContext;
        for (CountingCall<String> call : action.calls) {
            bh.consume(runner.durableExecute(call));
        }
    }

    /** Reference: Jackson decoding of the 16 recorded result payloads, no journal. */
    @Benchmark
    public void decodeOnly(Action action, Blackhole bh) throws Exception {
        for (byte[] payload : action.payloads) {
            bh.consume(MAPPER.readValue(payload, String.class));
        }
    }

    /** The 16 calls answered from the recorded journal. */
    @Benchmark
    public void replay(Action action, Recovery recovery, Blackhole bh) throws Exception {
        RunnerContextImpl runner = recovery.runner;
        for (CountingCall<String> call : action.calls) {
            bh.consume(runner.durableExecute(call));
        }
    }
}
