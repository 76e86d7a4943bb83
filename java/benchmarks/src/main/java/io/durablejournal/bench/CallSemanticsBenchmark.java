package io.durablejournal.bench;

import io.durablejournal.ActionState;
import io.durablejournal.CountingCall;
import io.durablejournal.DurableCall;
import io.durablejournal.DurableCallable;
import io.durablejournal.DurableExecutionContext;
import io.durablejournal.RunnerContextImpl;
import io.durablejournal.store.ActionStateStores;
import io.durablejournal.store.EventIdentity;
import io.durablejournal.store.FileStoreOptions;
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

/**
 * What each of the three choices for an interrupted call costs (docs/exactly-once.md): a fresh
 * action of {@link #CALLS} durable calls with 1 KB results on the native file store, the calls
 * {@code atLeastOnce} (the default), {@code withKey} (the default, each body reading its
 * idempotency key: one more crossing) or {@code atMostOnce} (one more durable write per call: its
 * PENDING record before the body). The file store fsyncs each record ({@code syncEachPut}) or one
 * per {@link BenchSupport#GROUP_COMMIT_BATCH} ({@code groupCommit}). Compare the rows of one run.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
public class CallSemanticsBenchmark {
    static final int CALLS = 10;

    public enum Choice { atLeastOnce, withKey, atMostOnce }

    @Param({"atLeastOnce", "withKey", "atMostOnce"})
    public Choice choice;

    @Param({"groupCommit", "syncEachPut"})
    public String durability;

    private Path directory;
    private NativeActionStateStore store;
    private DurableCallable<?>[] calls;
    private final ActionState initial = BenchSupport.initialState();
    private long seq;

    @Setup(Level.Trial)
    public void open() throws IOException {
        directory = Files.createTempDirectory("durable-journal-jmh-semantics-");
        FileStoreOptions options = durability.equals("syncEachPut") ? FileStoreOptions.defaults().syncEachPut()
                : FileStoreOptions.defaults().groupCommit(BenchSupport.GROUP_COMMIT_BATCH);
        store = ActionStateStores.openFileStore(directory, options);
        CountingCall<String>[] counting = BenchSupport.calls(CALLS, BenchSupport.RECORD_PAYLOAD_BYTES);
        calls = new DurableCallable<?>[CALLS];
        for (int i = 0; i < CALLS; i++) {
            CountingCall<String> call = counting[i];
            switch (choice) {
                case atMostOnce:
                    calls[i] = DurableCallable.atMostOnce(call.getId(), String.class, call::call);
                    break;
                case withKey:
                    calls[i] = DurableCallable.of(call.getId(), String.class, () -> DurableCall.current().idempotencyKey() == null ? null : call.call());
                    break;
                default:
                    calls[i] = call;
            }
        }
    }

    @TearDown(Level.Trial)
    public void close() throws IOException {
        store.close();
        BenchSupport.deleteTree(directory);
    }

    @Benchmark
    public Object action() throws Exception {
        Object last = null;
        seq++;
        try (DurableExecutionContext journal = store.openContext(BenchSupport.KEY, seq, BenchSupport.ACTION,
                EventIdentity.occurrence("occ-" + seq), initial)) {
            RunnerContextImpl runner = new RunnerContextImpl(journal);
            for (DurableCallable<?> call : calls) {
                last = runner.durableExecute(call);
            }
            journal.markCompleted();
        }
        if (seq % BenchSupport.PRUNE_EVERY == 0) {
            store.pruneState(BenchSupport.KEY, seq);
        }
        return last;
    }
}
