package io.durablejournal.bench;

import io.durablejournal.DurableExecutionContext;
import io.durablejournal.RunnerContextImpl;
import io.durablejournal.store.ActionStateStores;
import io.durablejournal.store.EventIdentity;
import io.durablejournal.store.NativeActionStateStore;
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
 * closed-checked); the journal holds a recorded 16-call action and is not modified. The keyed
 * store calls ({@link #storeGetJson()}, {@link #storeGetMissing()}) measure an entry key crossing
 * into the in-memory store: the whole key (business key, sequence number, action, event) and the
 * entry's JSON back, or nothing back for a key the store does not hold.
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
    private NativeActionStateStore store;
    private EventIdentity event;

    @Setup(Level.Trial)
    public void open() throws Exception {
        journal = new DurableExecutionContext(
                BenchSupport.recordedState(BenchSupport.calls(BenchSupport.REPLAY_CALLS, payloadBytes)), null);
        runner = new RunnerContextImpl(journal);
        byte[] result = (byte[]) runner.getCallResultFieldsAt(SLOT)[2];
        if (result.length != payloadBytes) {
            throw new IllegalStateException("slot " + SLOT + " holds " + result.length + " B, expected " + payloadBytes);
        }
        store = ActionStateStores.inMemory();
        event = EventIdentity.occurrence("occurrence-of-the-input-record");
        store.put(BenchSupport.KEY, 1, BenchSupport.ACTION, event, journal.getActionState());
        if (store.getJson(BenchSupport.KEY, 1, BenchSupport.ACTION, event) == null) {
            throw new IllegalStateException("the stored entry is not found");
        }
    }

    @TearDown(Level.Trial)
    public void close() {
        journal.close();
        store.close();
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

    @Benchmark
    public byte[] storeGetJson() {
        return store.getJson(BenchSupport.KEY, 1, BenchSupport.ACTION, event);
    }

    @Benchmark
    public byte[] storeGetMissing() {
        return store.getJson(BenchSupport.KEY, 2, BenchSupport.ACTION, event);
    }
}
