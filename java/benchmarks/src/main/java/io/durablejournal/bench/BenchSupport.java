package io.durablejournal.bench;

import com.fasterxml.jackson.databind.ObjectMapper;
import io.durablejournal.ActionState;
import io.durablejournal.ActionStatePersister;
import io.durablejournal.ActionStateSerde;
import io.durablejournal.CountingCall;
import io.durablejournal.DurableExecutionContext;
import io.durablejournal.RunnerContextImpl;
import io.durablejournal.store.ActionStateStores;
import io.durablejournal.store.EventIdentity;
import io.durablejournal.store.FileStoreOptions;
import io.durablejournal.store.NativeActionStateStore;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.Comparator;
import java.util.stream.Stream;

/**
 * The workloads the benchmarks and {@link BenchReport} share, so that the bytes the report counts
 * come from exactly the actions JMH times.
 */
public final class BenchSupport {
    /** Calls per action in the replay and JNI benchmarks (the criterion benchmark uses the same). */
    static final int REPLAY_CALLS = 16;
    /** Result size of a recorded call in the record-path benchmark. */
    static final int RECORD_PAYLOAD_BYTES = 1024;
    /** Group-commit batch of the file store (one fsync per 64 records). */
    static final int GROUP_COMMIT_BATCH = 64;
    /** The store prunes completed entries every this many actions, as the operator does per checkpoint. */
    static final int PRUNE_EVERY = 64;

    /** Entry address parts, as in the Rust store benchmark (so the byte counts can be compared). */
    static final Long KEY = 42L;
    static final String ACTION = "process";

    private BenchSupport() {}

    /** A String whose JSON encoding (the recorded result payload) is exactly {@code jsonBytes} bytes. */
    static String resultOfJsonSize(int jsonBytes) {
        char[] body = new char[jsonBytes - 2];
        Arrays.fill(body, 'x');
        String value = new String(body);
        int encoded = ("\"" + value + "\"").getBytes(StandardCharsets.UTF_8).length;
        if (encoded != jsonBytes) {
            throw new AssertionError(encoded + " != " + jsonBytes);
        }
        return value;
    }

    /** Fails when any of the calls really ran (a replay must answer them all from the journal). */
    static void assertNoneExecuted(CountingCall<String>[] calls) {
        for (CountingCall<String> call : calls) {
            if (call.calls.get() != 0) {
                throw new IllegalStateException(call.getId() + " ran " + call.calls.get() + " times during a replay benchmark");
            }
        }
    }

    /**
     * {@code count} calls {@code call-00000, call-00001, ...} (the ids the Rust store benchmark
     * uses), each returning the same precomputed String: a trivial side effect, and a durable call
     * of both runtimes (ours and Flink Agents'), so both run the very same calls; each counts how
     * often it really ran (a replay benchmark checks that it never does).
     */
    static CountingCall<String>[] calls(int count, int resultJsonBytes) {
        String result = resultOfJsonSize(resultJsonBytes);
        @SuppressWarnings("unchecked")
        CountingCall<String>[] calls = new CountingCall[count];
        for (int i = 0; i < count; i++) {
            calls[i] = CountingCall.returning(String.format("call-%05d", i), result);
        }
        return calls;
    }

    /**
     * The ActionState of an action that ran {@code calls} through the journal once (their execution
     * counts reset after), as a store's {@code get} returns it: read by the native library, which
     * finds its recorded hits.
     */
    static ActionState recordedState(CountingCall<String>[] calls) throws Exception {
        try (DurableExecutionContext journal = new DurableExecutionContext(new ActionState(), null)) {
            RunnerContextImpl runner = new RunnerContextImpl(journal);
            for (CountingCall<String> call : calls) {
                runner.durableExecute(call);
            }
            resetExecutions(calls);
            return ActionStateSerde.deserialize(ActionStateSerde.serialize(journal.getActionState()));
        }
    }

    static void resetExecutions(CountingCall<String>[] calls) {
        for (CountingCall<String> call : calls) {
            call.calls.set(0);
        }
    }

    /** The state an action starts from: its trigger event, as in the Rust store benchmark. */
    static ActionState initialState() {
        ActionState state = new ActionState();
        try {
            state.setTaskEvent(new ObjectMapper().readTree("{\"@class\":\"org.example.InputEvent\",\"input\":\"question\"}"));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return state;
    }

    /** How the record-path benchmark persists a fresh action's journal. */
    public enum Persistence {
        /** {@code new DurableExecutionContext(initial, null)}: a Java context without a persister. */
        none,
        /**
         * A Java {@link ActionStatePersister} that serializes the whole ActionState with {@link
         * ActionStateSerde} on every persist, plus the initial put: what Flink Agents does.
         */
        wholeState,
        /** {@code ActionStateStores.inMemory().openContext(...)}: one native delta record per mutation. */
        memoryStore,
        /** The native file store with group commit (one fsync per {@link #GROUP_COMMIT_BATCH} records). */
        fileStore,
        /**
         * The baseline: Flink Agents 0.3.1's own RunnerContextImpl, whose persister serializes the
         * whole state with its ActionStateSerde, as its Kafka store does (see {@link FlinkAgentsBaseline}).
         */
        flinkAgents
    }

    /**
     * Runs fresh actions of {@code n} calls of 1 KB results, each one: open its journal (the
     * initial state put), run the calls through {@link RunnerContextImpl#durableExecute}, mark it
     * completed, close. Store entries get fresh sequence numbers and are pruned every {@link
     * #PRUNE_EVERY} actions inside {@link #runAction()} (amortized, compaction included).
     */
    static final class Recorder implements AutoCloseable {
        private final Persistence persistence;
        private final CountingCall<String>[] calls;
        private final ActionState initial = initialState();
        private final WholeStatePersister persister = new WholeStatePersister();
        private final NativeActionStateStore store;
        private final Path directory;
        private final FlinkAgentsBaseline.Recorder flinkAgents;
        private long seq;

        Recorder(Persistence persistence, int n) throws IOException {
            this.persistence = persistence;
            this.calls = calls(n, RECORD_PAYLOAD_BYTES);
            this.flinkAgents = persistence == Persistence.flinkAgents ? new FlinkAgentsBaseline.Recorder(calls) : null;
            switch (persistence) {
                case memoryStore:
                    directory = null;
                    store = ActionStateStores.inMemory();
                    break;
                case fileStore:
                    directory = Files.createTempDirectory("durable-journal-jmh-");
                    store = ActionStateStores.openFileStore(directory, FileStoreOptions.defaults().groupCommit(GROUP_COMMIT_BATCH));
                    break;
                default:
                    directory = null;
                    store = null;
            }
        }

        Object runAction() throws Exception {
            if (flinkAgents != null) {
                return flinkAgents.runAction();
            }
            Object last = null;
            try (DurableExecutionContext journal = open()) {
                RunnerContextImpl runner = new RunnerContextImpl(journal);
                for (CountingCall<String> call : calls) {
                    last = runner.durableExecute(call);
                }
                journal.markCompleted();
            }
            if (store != null && seq % PRUNE_EVERY == 0) {
                store.pruneState(KEY, seq);
            }
            return last;
        }

        private DurableExecutionContext open() {
            switch (persistence) {
                case none:
                    return new DurableExecutionContext(initial, null);
                case wholeState:
                    persister.persist(initial); // the initial put of the action's entry
                    return new DurableExecutionContext(initial, persister);
                default:
                    seq++;
                    return store.openContext(KEY, seq, ACTION, EventIdentity.occurrence("occ-" + seq), initial);
            }
        }

        /** Bytes the persistence wrote so far: the serialized states, or the store's appended records; -1 if none. */
        long bytesWritten() {
            switch (persistence) {
                case wholeState:
                    return persister.bytes;
                case flinkAgents:
                    return flinkAgents.persister.bytes;
                case fileStore:
                    return store.stats().bytesAppended();
                default:
                    return -1;
            }
        }

        @Override
        public void close() throws IOException {
            if (store != null) {
                store.close();
            }
            if (directory != null) {
                deleteTree(directory);
            }
        }
    }

    /** Deletes a benchmark's temporary directory and everything in it. */
    static void deleteTree(Path directory) throws IOException {
        try (Stream<Path> paths = Files.walk(directory)) {
            for (Path path : (Iterable<Path>) paths.sorted(Comparator.reverseOrder())::iterator) {
                Files.delete(path);
            }
        }
    }

    /** Serializes the whole ActionState on every persist and counts the bytes (writes them nowhere). */
    static final class WholeStatePersister implements ActionStatePersister {
        long bytes;

        @Override
        public void persist(ActionState state) {
            bytes += ActionStateSerde.serialize(state).length;
        }
    }
}
