package io.durablejournal.bench;

import io.durablejournal.ActionState;
import io.durablejournal.ActionStateSerde;
import io.durablejournal.DurableExecutionContext;
import io.durablejournal.RunnerContextImpl;
import io.durablejournal.CountingCall;
import io.durablejournal.store.ActionStateStores;
import io.durablejournal.store.EventIdentity;
import io.durablejournal.store.NativeActionStateStore;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
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
 * Recovery: after a failover, a 16-call action runs again over its recorded state and every call
 * is answered from the journal. Timed from the state the runtime holds to the last answer:
 * opening the journal over the state, then the 16 durableExecute calls. Three ways:
 * <ul>
 *   <li>{@link #ours}: {@code new DurableExecutionContext(state, persister)} over the recorded
 *       Java ActionState, and our RunnerContextImpl;
 *   <li>{@link #fileStore}: the same journal reopened from the native file store ({@code
 *       openContext} over the stored entry, no Java ActionState involved);
 *   <li>{@link #flinkAgents}, the baseline: Flink Agents 0.3.1's {@code new
 *       DurableExecutionContext(..., state, persister)} over the ActionState its RunnerContextImpl
 *       recorded, and its RunnerContextImpl;
 *   <li>{@link #flinkAgentsFromStoredRecord}, the baseline of {@link #fileStore}: the same from the
 *       bytes its store holds (decoded by its ActionStateSerde first).
 * </ul>
 * The Flink operators read the entry first ({@code store.get}, which tells a completed action from an
 * interrupted one): {@link #storeGetThenResuming} is what they do since, {@link
 * #storeGetThenOpenContext} what they did before (the store's journal opened at once).
 * Both persisters serialize the whole state with their runtime's ActionStateSerde; a replay
 * persists nothing, so they never run. No call may execute (checked after each iteration). The
 * {@code *Only} benchmarks time parts of ours, to show where its time goes.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
public class RecoveryBenchmark {
    private static final long SEQ = 1;
    private static final EventIdentity OCCURRENCE = EventIdentity.occurrence("occ-recovery");

    /** Size of each recorded result payload (its JSON) in bytes. */
    @Param({"100", "10240"})
    public int payloadBytes;

    private CountingCall<String>[] calls;
    private ActionState ours;
    private org.apache.flink.agents.runtime.actionstate.ActionState theirs;
    /** Their state as their Kafka store holds it: its ActionStateSerde's bytes. */
    private byte[] theirsStored;
    private final BenchSupport.WholeStatePersister ourPersister = new BenchSupport.WholeStatePersister();
    private final FlinkAgentsBaseline.SerdePersister theirPersister = new FlinkAgentsBaseline.SerdePersister();
    private Path directory;
    private NativeActionStateStore store;

    @Setup(Level.Trial)
    public void record() throws Exception {
        calls = BenchSupport.calls(BenchSupport.REPLAY_CALLS, payloadBytes);
        ours = BenchSupport.recordedState(calls);
        theirs = FlinkAgentsBaseline.recordedState(calls);
        theirsStored = org.apache.flink.agents.runtime.actionstate.ActionStateSerde.serialize(theirs);
        directory = Files.createTempDirectory("durable-journal-jmh-recovery-");
        store = ActionStateStores.openFileStore(directory);
        try (DurableExecutionContext journal = store.openContext(BenchSupport.KEY, SEQ, BenchSupport.ACTION, OCCURRENCE, null)) {
            RunnerContextImpl runner = new RunnerContextImpl(journal);
            for (CountingCall<String> call : calls) {
                runner.durableExecute(call);
            }
        }
        BenchSupport.resetExecutions(calls);
    }

    @TearDown(Level.Iteration)
    public void checkNothingRan() {
        BenchSupport.assertNoneExecuted(calls);
        if (ourPersister.bytes != 0 || theirPersister.bytes != 0) {
            throw new IllegalStateException("a replay persisted something");
        }
    }

    @TearDown(Level.Trial)
    public void close() throws IOException {
        store.close();
        BenchSupport.deleteTree(directory);
    }

    @Benchmark
    public void ours(Blackhole bh) throws Exception {
        try (DurableExecutionContext journal = new DurableExecutionContext(ours, ourPersister)) {
            replay(journal, bh);
        }
    }

    @Benchmark
    public void fileStore(Blackhole bh) throws Exception {
        try (DurableExecutionContext journal = store.openContext(BenchSupport.KEY, SEQ, BenchSupport.ACTION, OCCURRENCE, null)) {
            replay(journal, bh);
        }
    }

    /**
     * Breakdown of {@link #ours}: the context created over the state and closed, no call made (it
     * opens no native journal: recorded hits are answered from the state).
     */
    @Benchmark
    public void oursOpenOnly() {
        new DurableExecutionContext(ours, ourPersister).close();
    }

    /**
     * What the first call that is not a recorded hit adds: the native journal opened over the
     * state (the state written as JSON and parsed by the core).
     */
    @Benchmark
    public int oursNativeJournalOpen() {
        try (DurableExecutionContext journal = new DurableExecutionContext(ours, ourPersister)) {
            return journal.size();
        }
    }

    /** Breakdown of {@link #ours}: the Java ActionState written as JSON, the first step of opening the journal. */
    @Benchmark
    public byte[] oursSerializeOnly() {
        return ActionStateSerde.serialize(ours);
    }

    /** Breakdown of {@link #fileStore}: the journal opened from the store and closed, no call made. */
    @Benchmark
    public void fileStoreOpenOnly() {
        store.openContext(BenchSupport.KEY, SEQ, BenchSupport.ACTION, OCCURRENCE, null).close();
    }

    /**
     * The Flink operators' re-run of an interrupted action ({@code DurableActionRunner}), every
     * call a hit: the entry read from the file store (which tells a completed action from an
     * interrupted one), {@code DurableExecutionContext.resuming} answering the 16 hits from it (the
     * store's journal would open at the first miss; there is none), then the state the completed
     * action is stored from.
     */
    @Benchmark
    public ActionState storeGetThenResuming(Blackhole bh) throws Exception {
        ActionState recorded = store.get(BenchSupport.KEY, SEQ, BenchSupport.ACTION, OCCURRENCE);
        try (DurableExecutionContext journal = DurableExecutionContext.resuming(recorded,
                () -> store.openContext(BenchSupport.KEY, SEQ, BenchSupport.ACTION, OCCURRENCE, null))) {
            replay(journal, bh);
            return journal.getActionState();
        }
    }

    /**
     * What {@link #storeGetThenResuming} replaces: the entry read, the store's journal opened at
     * once, 16 hits through it, and the state taken from it (a native snapshot).
     */
    @Benchmark
    public ActionState storeGetThenOpenContext(Blackhole bh) throws Exception {
        bh.consume(store.get(BenchSupport.KEY, SEQ, BenchSupport.ACTION, OCCURRENCE));
        try (DurableExecutionContext journal = store.openContext(BenchSupport.KEY, SEQ, BenchSupport.ACTION, OCCURRENCE, null)) {
            replay(journal, bh);
            return journal.getActionState();
        }
    }

    /** Breakdown of both: the entry read from the file store as a Java ActionState. */
    @Benchmark
    public ActionState storeGetOnly() {
        return store.get(BenchSupport.KEY, SEQ, BenchSupport.ACTION, OCCURRENCE);
    }

    /** Baseline: Flink Agents 0.3.1. */
    @Benchmark
    public void flinkAgents(Blackhole bh) throws Exception {
        org.apache.flink.agents.runtime.context.RunnerContextImpl runner = FlinkAgentsBaseline.runner(theirs, theirPersister);
        for (CountingCall<String> call : calls) {
            bh.consume(runner.durableExecute(call));
        }
    }

    /**
     * The baseline for {@link #fileStore}: Flink Agents 0.3.1 recovering from what its store holds,
     * the state's record decoded by its ActionStateSerde (what its Kafka store's rebuildState does
     * for each record), then the same 16 calls.
     */
    @Benchmark
    public void flinkAgentsFromStoredRecord(Blackhole bh) throws Exception {
        org.apache.flink.agents.runtime.actionstate.ActionState stored =
                org.apache.flink.agents.runtime.actionstate.ActionStateSerde.deserialize(theirsStored);
        org.apache.flink.agents.runtime.context.RunnerContextImpl runner = FlinkAgentsBaseline.runner(stored, theirPersister);
        for (CountingCall<String> call : calls) {
            bh.consume(runner.durableExecute(call));
        }
    }

    private void replay(DurableExecutionContext journal, Blackhole bh) throws Exception {
        RunnerContextImpl runner = new RunnerContextImpl(journal);
        for (CountingCall<String> call : calls) {
            bh.consume(runner.durableExecute(call));
        }
    }
}
