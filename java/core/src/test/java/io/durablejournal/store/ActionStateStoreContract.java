package io.durablejournal.store;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import io.durablejournal.ActionState;
import io.durablejournal.ActionStateSerde;
import io.durablejournal.CallResult;
import io.durablejournal.CountingCall;
import io.durablejournal.DurableCallable;
import io.durablejournal.DurableExecutionContext;
import io.durablejournal.ExactRecords;
import io.durablejournal.JournalException;
import io.durablejournal.RunnerContextImpl;
import io.durablejournal.store.internal.InFlightEntries;
import io.durablejournal.store.internal.JsonEntryStore;
import io.durablejournal.store.internal.ResumingEntry;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * What every {@link ActionStateStore} promises (spec §4, {@code docs/store.md}), written once:
 * addressing, exact round trips, the hide-later rule, prune, journals that persist each call and
 * replay it, JSON puts, size limits, restores from the store's own markers, close, and errors.
 *
 * <p>A backend runs it with one class that extends this one and says how to open its store
 * ({@link #openNew}) and how a Flink restore reopens it ({@link #restore}): {@code
 * MemoryStoreContractTest}, {@code FileStoreContractTest}, {@code LogStoreContractTest} (over an
 * in-memory log) and, in java/kafka, {@code KafkaStoreContractTest} (on a real broker).
 */
public abstract class ActionStateStoreContract {
    private static final EventIdentity EVENT = EventIdentity.occurrence("occ-1");
    /** What the native stores refuse above by default: 64 MiB per record. */
    protected static final long DEFAULT_MAX_RECORD_BYTES = 64L << 20;

    private final List<ActionStateStore> opened = new ArrayList<>();

    /**
     * A new, empty store over a medium of its own (a directory, a log, a topic); the subclass keeps
     * what {@link #restore} needs to open that medium again. One per test.
     */
    protected abstract ActionStateStore openNew() throws Exception;

    /**
     * What a Flink restore from {@code markers} gives: a backend that persists closes {@code store}
     * and opens its medium again, then {@link ActionStateStore#rebuildState}; the in-memory store,
     * which forgets everything with its JVM, rebuilds on the store itself.
     */
    protected abstract ActionStateStore restore(ActionStateStore store, List<byte[]> markers) throws Exception;

    /** Whether {@link ActionStateStore#bytesAppended()} counts (the in-memory store writes nothing: -1). */
    protected boolean countsBytesAppended() {
        return true;
    }

    /** The largest record the store takes, in bytes, named by its size-limit errors. */
    protected long maxRecordBytes() {
        return DEFAULT_MAX_RECORD_BYTES;
    }

    /** Closes {@code store} after the test; returns it. */
    protected final <S extends ActionStateStore> S track(S store) {
        opened.add(store);
        return store;
    }

    @AfterEach
    void closeStores() {
        opened.forEach(ActionStateStore::close);
    }

    private ActionStateStore open() throws Exception {
        return track(openNew());
    }

    private ActionStateStore restored(ActionStateStore store, List<byte[]> markers) throws Exception {
        return track(restore(store, markers));
    }

    private static ActionState stateWithOutput(String text) {
        ActionState state = new ActionState();
        state.addOutputEvent(JsonNodeFactory.instance.textNode(text));
        return state;
    }

    private static String output(ActionState state) {
        return state == null ? null : state.getOutputEvents().get(0).asText();
    }

    private static String json(ActionState state) {
        return ExactRecords.text(ActionStateSerde.serialize(state));
    }

    private static DurableCallable<String> call(String id, AtomicInteger runs, String result) {
        return DurableCallable.of(id, String.class, () -> {
            runs.incrementAndGet();
            return result;
        });
    }

    @Test
    void putThenGetReturnsTheStateAndAMissIsNull() throws Exception {
        ActionStateStore store = open();
        ActionState state = stateWithOutput("out");
        state.addCallResult(new CallResult("tool-call:📧", "\"r\"".getBytes(StandardCharsets.UTF_8), null));
        state.addCallResult(CallResult.pending("chat"));
        store.put("user-1", 0, "act", EVENT, state);
        assertEquals(state, store.get("user-1", 0, "act", EVENT));
        assertNull(store.get("user-1", 0, "other-action", EVENT));
        assertNull(store.get("user-1", 0, "act", EventIdentity.occurrence("occ-2")));
        assertNull(store.get("user-1", 0, "act", EventIdentity.attributes(new byte[] {1})));
    }

    /**
     * A call whose result is over the store's limit per record: the action sees
     * SIZE_LIMIT_EXCEEDED naming the limit, nothing is recorded, the store goes on, and on replay
     * the call runs again (it was never recorded).
     */
    @Test
    void aResultOverTheStoreLimitIsRefusedTheStoreGoesOnAndTheCallRunsAgainOnReplay() throws Exception {
        ActionStateStore store = open();
        AtomicInteger bigRuns = new AtomicInteger();
        String huge = "x".repeat(Math.toIntExact(maxRecordBytes()));
        try (DurableExecutionContext journal = store.openContext("user-1", 0, "act", EVENT, null)) {
            RunnerContextImpl ctx = new RunnerContextImpl(journal);
            assertEquals("small", ctx.durableExecute(DurableCallable.of("tool-call:small", String.class, () -> "small")));
            JournalException e = assertThrows(JournalException.class, () -> ctx.durableExecute(call("tool-call:big", bigRuns, huge)));
            assertEquals(JournalException.Code.SIZE_LIMIT_EXCEEDED, e.getCode(), e.getMessage());
            assertTrue(e.getMessage().contains("over the limit of " + maxRecordBytes() + " bytes"), e.getMessage());
        }
        assertEquals(1, store.get("user-1", 0, "act", EVENT).getCallResults().size(), "only the small call is recorded");
        try (DurableExecutionContext journal = store.openContext("user-1", 0, "act", EVENT, null)) {
            RunnerContextImpl ctx = new RunnerContextImpl(journal);
            assertEquals("small", ctx.durableExecute(DurableCallable.of("tool-call:small", String.class, () -> "ran again")));
            assertEquals("fits", ctx.durableExecute(call("tool-call:big", bigRuns, "fits")));
        }
        assertEquals(2, bigRuns.get(), "the refused call ran again on replay");
        assertEquals(2, store.get("user-1", 0, "act", EVENT).getCallResults().size());
    }

    @Test
    void aMissingSeqNumHidesEveryLaterOneOfThatKeyOnly() throws Exception {
        ActionStateStore store = open();
        store.put("a", 1, "act", EVENT, stateWithOutput("a1"));
        store.put("a", 3, "act", EVENT, stateWithOutput("a3"));
        store.put("a", 4, "act", EVENT, stateWithOutput("a4"));
        store.put("b", 3, "act", EVENT, stateWithOutput("b3"));
        assertNull(store.get("a", 2, "act", EVENT), "nothing at seq 2");
        assertNull(store.get("a", 3, "act", EVENT), "seq 3 is hidden behind the missing seq 2");
        assertNull(store.get("a", 4, "act", EVENT));
        assertEquals("a1", output(store.get("a", 1, "act", EVENT)), "earlier seqs stay");
        assertEquals("b3", output(store.get("b", 3, "act", EVENT)), "other keys stay");
    }

    @Test
    void longOneStringOneIntegerOneAndBytesOneAreDifferentKeys() throws Exception {
        ActionStateStore store = open();
        store.put(1L, 0, "act", EVENT, stateWithOutput("long"));
        store.put("1", 0, "act", EVENT, stateWithOutput("string"));
        store.put(1, 0, "act", EVENT, stateWithOutput("int"));
        // One array for both calls: Flink's key groups hash an array by identity (keyBy refuses arrays).
        byte[] bytesOne = {'1'};
        store.put(bytesOne, 0, "act", EVENT, stateWithOutput("bytes"));
        assertEquals("long", output(store.get(1L, 0, "act", EVENT)));
        assertEquals("string", output(store.get("1", 0, "act", EVENT)));
        assertEquals("int", output(store.get(1, 0, "act", EVENT)));
        assertEquals("bytes", output(store.get(bytesOne, 0, "act", EVENT)));
        store.pruneState(1L, 0);
        assertNull(store.get(1L, 0, "act", EVENT));
        assertEquals("string", output(store.get("1", 0, "act", EVENT)), "pruning Long 1 leaves \"1\" alone");
    }

    @Test
    void underscoresInKeysAndActionNamesDoNotCollide() throws Exception {
        ActionStateStore store = open();
        // Flink Agents' "key_seq_action" form makes both of these "a_1_2_x".
        store.put("a_1", 2, "x", EVENT, stateWithOutput("first"));
        store.put("a", 1, "2_x", EVENT, stateWithOutput("second"));
        assertEquals("first", output(store.get("a_1", 2, "x", EVENT)));
        assertEquals("second", output(store.get("a", 1, "2_x", EVENT)));
        store.pruneState("a", 5);
        assertEquals("first", output(store.get("a_1", 2, "x", EVENT)), "pruning key a leaves key a_1 alone");
    }

    @Test
    void typedKeysUseClassNameAndToString() throws Exception {
        ActionStateStore store = open();
        store.put(new Pair("x", 1), 0, "act", EVENT, stateWithOutput("pair"));
        store.put("Pair(x,1)", 0, "act", EVENT, stateWithOutput("string"));
        assertEquals("pair", output(store.get(new Pair("x", 1), 0, "act", EVENT)));
        assertEquals("string", output(store.get("Pair(x,1)", 0, "act", EVENT)));
        IllegalArgumentException refused = assertThrows(IllegalArgumentException.class,
                () -> store.put(new Object(), 0, "act", EVENT, new ActionState()));
        assertTrue(refused.getMessage().contains("toString"), refused.getMessage());
    }

    @Test
    void pruneDropsEntriesUpToTheSeqNumOfThatKey() throws Exception {
        ActionStateStore store = open();
        for (int seq = 0; seq < 4; seq++) {
            store.put("k", seq, "act", EVENT, stateWithOutput("k" + seq));
            store.put("other", seq, "act", EVENT, stateWithOutput("o" + seq));
        }
        store.pruneState("k", 1);
        assertEquals("k2", output(store.get("k", 2, "act", EVENT)));
        assertEquals("k3", output(store.get("k", 3, "act", EVENT)));
        assertEquals("o0", output(store.get("other", 0, "act", EVENT)));
        assertNull(store.get("k", 1, "act", EVENT), "pruned");
        store.pruneState("never-stored", 10);
    }

    /** What the Flink operators read through the interface: the entries now, and the bytes written. */
    @Test
    void liveEntriesAndBytesAppendedFollowTheWrites() throws Exception {
        ActionStateStore store = open();
        assertEquals(0, store.liveEntries());
        long bytesBefore = store.bytesAppended();
        store.put("k", 0, "act", EVENT, stateWithOutput("first"));
        store.put("k", 1, "act", EVENT, stateWithOutput("second"));
        assertEquals(2, store.liveEntries());
        store.pruneState("k", 0);
        assertEquals(1, store.liveEntries());
        if (countsBytesAppended()) {
            assertTrue(store.bytesAppended() > bytesBefore, "two puts were appended");
        } else {
            assertEquals(-1, store.bytesAppended(), "a store that writes nothing does not count");
        }
    }

    @Test
    void openContextJournalsEveryCallAndReplaysItInTheNextContext() throws Exception {
        ActionStateStore store = open();
        CountingCall<String> chat = CountingCall.returning("chat", "hello");
        CountingCall<String> tool = CountingCall.returning("tool-call:t1", "42");
        try (DurableExecutionContext ctx = store.openContext("user", 7, "act", EVENT, null)) {
            RunnerContextImpl runner = new RunnerContextImpl(ctx);
            assertEquals("hello", runner.durableExecute(chat));
            assertEquals("42", runner.durableExecute(tool));
        }
        ActionState stored = store.get("user", 7, "act", EVENT);
        assertEquals(2, stored.getCallResults().size());
        assertFalse(stored.isCompleted());
        try (DurableExecutionContext ctx = store.openContext("user", 7, "act", EVENT, new ActionState())) {
            RunnerContextImpl runner = new RunnerContextImpl(ctx);
            assertEquals("hello", runner.durableExecute(chat));
            assertEquals("42", runner.durableExecute(tool));
            assertEquals(2, ctx.getReplayedCallCount());
        }
        assertEquals(1, chat.calls.get(), "replayed, not run again");
        assertEquals(1, tool.calls.get());
    }

    @Test
    void aClosedStoreRefusesEveryCallAndItsOpenJournalsFailCleanly() throws Exception {
        ActionStateStore store = open();
        DurableExecutionContext ctx = store.openContext("k", 0, "act", EVENT, null);
        store.close();
        store.close();
        List<Executable> calls = Arrays.asList(
                () -> store.get("k", 0, "act", EVENT),
                () -> store.put("k", 0, "act", EVENT, new ActionState()),
                () -> store.openContext("k", 0, "act", EVENT, null),
                () -> store.pruneState("k", 0),
                store::getRecoveryMarker,
                () -> store.rebuildState(Collections.emptyList()));
        for (Executable call : calls) {
            assertThrows(IllegalStateException.class, call::run);
        }
        JournalException closed = assertThrows(JournalException.class, () -> ctx.recordCallCompletion("f", null, null));
        assertEquals(JournalException.Code.CLOSED, closed.getCode());
        assertEquals(0, ctx.size(), "the refused write was undone in memory too");
        ctx.close();
    }

    @Test
    void nullArgumentsAreNullPointerExceptions() throws Exception {
        ActionStateStore store = open();
        assertThrows(NullPointerException.class, () -> store.put(null, 0, "act", EVENT, new ActionState()));
        assertThrows(NullPointerException.class, () -> store.put("k", 0, null, EVENT, new ActionState()));
        assertThrows(NullPointerException.class, () -> store.put("k", 0, "act", null, new ActionState()));
        assertThrows(NullPointerException.class, () -> store.put("k", 0, "act", EVENT, null));
        assertThrows(NullPointerException.class, () -> json(store).putJson("k", 0, "act", EVENT, null));
        assertThrows(NullPointerException.class, () -> store.get("k", 0, "act", null));
        assertThrows(NullPointerException.class, () -> store.pruneState(null, 0));
        assertThrows(NullPointerException.class, () -> store.rebuildState(null));
        assertThrows(NullPointerException.class, () -> store.rebuildState(Collections.singletonList(null)));
        assertThrows(NullPointerException.class, () -> EventIdentity.occurrence(null));
    }

    @Test
    void journalsOfManyThreadsShareOneStore() throws Exception {
        ActionStateStore store = open();
        int threads = 4;
        int callsEach = 50;
        ExecutorService pool = Executors.newFixedThreadPool(threads);
        try {
            List<Future<Void>> done = new ArrayList<>();
            for (int t = 0; t < threads; t++) {
                String key = "thread-" + t;
                Callable<Void> work = () -> {
                    try (DurableExecutionContext ctx = store.openContext(key, 0, "act", EVENT, null)) {
                        RunnerContextImpl runner = new RunnerContextImpl(ctx);
                        for (int i = 0; i < callsEach; i++) {
                            runner.durableExecute(CountingCall.returning("tool-call:" + i, key + "/" + i));
                            store.get(key, 0, "act", EVENT);
                        }
                    }
                    return null;
                };
                done.add(pool.submit(work));
            }
            for (Future<Void> f : done) {
                f.get();
            }
        } finally {
            pool.shutdownNow();
        }
        for (int t = 0; t < threads; t++) {
            ActionState state = store.get("thread-" + t, 0, "act", EVENT);
            assertEquals(callsEach, state.getCallResults().size());
            assertArrayEquals(("\"thread-" + t + "/49\"").getBytes(StandardCharsets.UTF_8),
                    state.getCallResults().get(49).getResultPayload());
        }
    }

    @Test
    void exactDataComesBackWholeAndThroughJournalDeltas() throws Exception {
        ActionStateStore store = open();
        String record = ExactRecords.record();
        ActionState state = ActionStateSerde.deserialize(ExactRecords.utf8(record));
        store.put("user-1", 0, "act", EVENT, state);
        assertEquals(record, json(store.get("user-1", 0, "act", EVENT)));
        try (DurableExecutionContext ctx = store.openContext("user-1", 0, "act", EVENT, null)) {
            RunnerContextImpl runner = new RunnerContextImpl(ctx);
            runner.durableExecute(DurableCallable.of("tool-call:a", String.class, () -> "not run"));
            ctx.advanceCallIndexBy(2);
            // Flink Agents' pending slot (with its digest) is reconciled in place.
            assertEquals("reconciled", runner.durableExecute(DurableCallable.of(
                    "py.search::0123456789abcdef", String.class, () -> "ran", () -> "reconciled")));
        }
        String expected = record.replace(
                ExactRecords.slot("\"py.search::0123456789abcdef\"", "\"9f86d081884c7d65\"", "PENDING", "null", "null"),
                ExactRecords.slot("\"py.search::0123456789abcdef\"", "\"9f86d081884c7d65\"", "SUCCEEDED",
                        ExactRecords.base64("\"reconciled\""), "null"));
        assertNotEquals(record, expected);
        assertEquals(expected, json(store.get("user-1", 0, "act", EVENT)));
    }

    /** A call slot of Flink Agents' JSON, for JSON puts. */
    static String slot(String id, String status, String result) {
        return "{\"functionId\":\"" + id + "\",\"status\":\"" + status + "\",\"resultPayload\":"
                + (result == null ? "null" : "\"" + result + "\"") + ",\"exceptionPayload\":null}";
    }

    /** An ActionState in Flink Agents' JSON with these outputs and slots. */
    static byte[] stateJson(boolean completed, String outputs, String... slots) {
        return ("{\"taskEvent\":{\"@class\":\"org.example.InputEvent\",\"input\":\"q\"},"
                + "\"sensoryMemoryUpdates\":[],\"shortTermMemoryUpdates\":[],\"outputEvents\":[" + outputs + "],"
                + "\"callResults\":[" + String.join(",", slots) + "],\"completed\":" + completed + "}")
                .getBytes(StandardCharsets.UTF_8);
    }

    /** Flink Agents' operator puts the whole state after every call; each reads back exactly. */
    @Test
    void jsonPutsOfGrowingCutAndReappendedStatesReadBackExactly() throws Exception {
        ActionStateStore store = open();
        String a = slot("chat", "SUCCEEDED", "ImEi");
        String pending = slot("tool-call:b", "PENDING", null);
        String b = slot("tool-call:b", "SUCCEEDED", "");
        String c = slot("tool-call:c", "SUCCEEDED", "AP+A");
        String output = "{\"@class\":\"org.example.OutputEvent\",\"output\":\"answer \uD83C\uDF0D\"}";
        List<byte[]> puts = Arrays.asList(
                stateJson(false, ""),
                stateJson(false, "", a),
                stateJson(false, "", a, pending),
                stateJson(false, "", a, b),
                stateJson(false, "", a, b, c),
                stateJson(false, "", a),          // a re-run diverged after the first call
                stateJson(false, "", a, c),       // and recorded another one
                stateJson(false, "", a, c),       // the same state again
                stateJson(true, output));         // completed, with its output
        for (byte[] put : puts) {
            json(store).putJson("user", 3, "act", EVENT, put);
            ActionState expected = ActionStateSerde.deserialize(put);
            assertEquals(expected, ActionStateSerde.deserialize(json(store).getJson("user", 3, "act", EVENT)));
            assertEquals(expected, store.get("user", 3, "act", EVENT));
        }
        assertNull(json(store).getJson("user", 2, "act", EVENT));
    }

    @Test
    void aMalformedJsonPutIsRefusedAndChangesNothing() throws Exception {
        ActionStateStore store = open();
        byte[] stored = stateJson(false, "", slot("chat", "SUCCEEDED", "ImEi"));
        json(store).putJson("user", 0, "act", EVENT, stored);
        JournalException refused = assertThrows(JournalException.class,
                () -> json(store).putJson("user", 0, "act", EVENT, "{\"callResults\":[{\"status\":".getBytes(StandardCharsets.UTF_8)));
        assertEquals(JournalException.Code.MALFORMED_JSON, refused.getCode());
        assertEquals(ActionStateSerde.deserialize(stored), store.get("user", 0, "act", EVENT));
    }

    /**
     * A checkpoint's marker, then an action in flight across it: the restored store holds every
     * entry exactly (the journal written after the marker too), pruned and hidden entries stay
     * gone, and the re-run action replays its calls instead of running them.
     */
    @Test
    void aRestoreFromItsOwnMarkerKeepsEveryEntryAndTheCallsReplay() throws Exception {
        ActionStateStore store = open();
        String record = ExactRecords.record();
        store.put(7L, 1, "act", EVENT, ActionStateSerde.deserialize(ExactRecords.utf8(record)));
        Object[] keys = {"user-ü-🌍", 42L, 42, "42", new byte[] {0, 1, 2}};
        AtomicInteger runs = new AtomicInteger();
        for (Object key : keys) {
            runAction(store, key, 0, runs);
        }
        store.put("pruned", 0, "act", EVENT, stateWithOutput("pruned"));
        store.pruneState("pruned", 0);
        store.put("hidden", 2, "act", EVENT, stateWithOutput("hidden"));
        assertNull(store.get("hidden", 1, "act", EVENT), "a miss that hides seq 2");
        byte[] marker = store.getRecoveryMarker();
        List<String> inFlight = runAction(store, "after-the-marker", 3, runs);
        assertEquals(2 * (keys.length + 1), runs.get());

        ActionStateStore back = restored(store, Collections.singletonList(marker));
        assertEquals(record, json(back.get(7L, 1, "act", EVENT)), "exactly as put");
        for (Object key : keys) {
            assertEquals(List.of("a:" + key(key), "b:" + key(key)), runAction(back, key, 0, runs), "the re-run of " + key(key));
        }
        assertEquals(inFlight, runAction(back, "after-the-marker", 3, runs), "the journal written after the marker is kept");
        assertEquals(2 * (keys.length + 1), runs.get(), "no call ran twice");
        assertNull(back.get("pruned", 0, "act", EVENT), "pruned before the marker: gone");
        assertNull(back.get("hidden", 2, "act", EVENT), "hidden before the marker: gone");
    }

    /**
     * The answers of the interrupted entries read in one crossing (what Flink Agents' adapter
     * reads after a restore) are what {@code getResuming} answers for each, on a restored store.
     */
    @Test
    void inFlightEntriesAfterARestoreAnswerAsGetResumingDoes() throws Exception {
        ActionStateStore store = open();
        json(store).putJson("user", 3, "act", EVENT, stateJson(false, "", slot("chat", "SUCCEEDED", "ImEi"),
                slot("tool-call:b", "PENDING", null)));
        json(store).putJson("user", 4, "act", EVENT, stateJson(true, "{\"@class\":\"org.example.OutputEvent\"}"));
        ActionStateStore back = restored(store, Collections.singletonList(store.getRecoveryMarker()));

        InFlightEntries entries = json(back).inFlightEntries(1 << 20);
        assertEquals(1, entries.size(), "the interrupted entry only");
        ResumingEntry answered = entries.take("user", 3, "act", EVENT).resuming();
        ResumingEntry asked = json(back).getResuming("user", 3, "act", EVENT);
        assertArrayEquals(asked.stateJson(), answered.stateJson());
        assertEquals(2, answered.callCount());
        assertEquals(asked.recordedHits(), answered.recordedHits());
        assertEquals(List.of(new CallResult("chat", "\"a\"".getBytes(StandardCharsets.UTF_8), null)), answered.recordedHits());
        assertEquals(1, json(back).inFlightEntries(1 << 20).size(), "reading changed nothing");
    }

    @Test
    void aMarkerThatIsNoMarkerIsAnInvalidArgument() throws Exception {
        ActionStateStore store = open();
        store.put("k", 0, "act", EVENT, new ActionState());
        JournalException garbage = assertThrows(JournalException.class,
                () -> restored(store, Collections.singletonList(new byte[] {1, 2, 3})));
        assertEquals(JournalException.Code.INVALID_ARGUMENT, garbage.getCode());
    }

    private static String key(Object key) {
        return key instanceof byte[] ? Arrays.toString((byte[]) key) : key.getClass().getSimpleName() + " " + key;
    }

    /** An action of two durable calls at (key, seq): their results, "a:" and "b:" then the key, as recorded. */
    private static List<String> runAction(ActionStateStore store, Object key, long seq, AtomicInteger runs) throws Exception {
        List<String> results = new ArrayList<>();
        try (DurableExecutionContext journal = store.openContext(key, seq, "act", EVENT, null)) {
            RunnerContextImpl ctx = new RunnerContextImpl(journal);
            for (String call : new String[] {"a", "b"}) {
                results.add(ctx.durableExecute(call("tool-call:" + call, runs, call + ":" + key(key))));
            }
        }
        return results;
    }

    /** A call that may throw anything; JUnit's own Executable, restated to keep imports short. */
    @FunctionalInterface
    interface Executable {
        void run() throws Throwable;
    }

    /** A typed business key: a deterministic toString, and a hashCode (Flink's key groups hash it). */
    static final class Pair {
        final String name;
        final int n;

        Pair(String name, int n) {
            this.name = name;
            this.n = n;
        }

        @Override
        public boolean equals(Object o) {
            return o instanceof Pair && ((Pair) o).name.equals(name) && ((Pair) o).n == n;
        }

        @Override
        public int hashCode() {
            return Objects.hash(name, n);
        }

        @Override
        public String toString() {
            return "Pair(" + name + "," + n + ")";
        }
    }

    /** The JSON calls of a native store (every store this contract runs is one). */
    private static JsonEntryStore json(ActionStateStore store) {
        return (JsonEntryStore) store;
    }
}
