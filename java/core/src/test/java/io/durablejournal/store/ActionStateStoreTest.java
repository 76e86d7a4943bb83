package io.durablejournal.store;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import io.durablejournal.ActionState;
import io.durablejournal.ActionStateSerde;
import io.durablejournal.DurableCallable;
import io.durablejournal.ExactRecords;
import io.durablejournal.CallResult;
import io.durablejournal.DurableExecutionContext;
import io.durablejournal.JournalException;
import io.durablejournal.RunnerContextImpl;
import java.lang.reflect.Constructor;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/** The Java ActionStateStore over both native stores: addressing, the hide-later rule, prune, journals, lifecycle. */
class ActionStateStoreTest extends StoreFixture {
    private static final EventIdentity EVENT = EventIdentity.occurrence("occ-1");

    private static ActionState stateWithOutput(String text) {
        ActionState state = new ActionState();
        state.addOutputEvent(JsonNodeFactory.instance.textNode(text));
        return state;
    }

    private static String output(ActionState state) {
        return state == null ? null : state.getOutputEvents().get(0).asText();
    }

    @ParameterizedTest
    @MethodSource("stores")
    void putThenGetReturnsTheStateAndAMissIsNull(String kind) throws Exception {
        NativeActionStateStore store = open(kind);
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
     * A call whose result is over the store's limit per record (64 MiB): the action sees
     * SIZE_LIMIT_EXCEEDED naming the size and the limit, nothing is recorded, the store goes on,
     * and on replay the call runs again (it was never recorded).
     */
    @ParameterizedTest
    @MethodSource("stores")
    void aResultOverTheStoreLimitIsRefusedTheStoreGoesOnAndTheCallRunsAgainOnReplay(String kind) throws Exception {
        NativeActionStateStore store = open(kind);
        AtomicInteger bigRuns = new AtomicInteger();
        String huge = "x".repeat(64 << 20);
        try (DurableExecutionContext journal = store.openContext("user-1", 0, "act", EVENT, null)) {
            RunnerContextImpl ctx = new RunnerContextImpl(journal);
            assertEquals("small", ctx.durableExecute(DurableCallable.of("tool-call:small", String.class, () -> "small")));
            JournalException e = assertThrows(JournalException.class, () -> ctx.durableExecute(
                    DurableCallable.of("tool-call:big", String.class, () -> {
                        bigRuns.incrementAndGet();
                        return huge;
                    })));
            assertEquals(JournalException.Code.SIZE_LIMIT_EXCEEDED, e.getCode(), e.getMessage());
            assertTrue(e.getMessage().contains("over the limit of 67108864 bytes"), e.getMessage());
        }
        assertEquals(1, store.get("user-1", 0, "act", EVENT).getCallResults().size(), "only the small call is recorded");
        try (DurableExecutionContext journal = store.openContext("user-1", 0, "act", EVENT, null)) {
            RunnerContextImpl ctx = new RunnerContextImpl(journal);
            assertEquals("small", ctx.durableExecute(DurableCallable.of("tool-call:small", String.class, () -> "ran again")));
            assertEquals("fits", ctx.durableExecute(DurableCallable.of("tool-call:big", String.class, () -> {
                bigRuns.incrementAndGet();
                return "fits";
            })));
        }
        assertEquals(2, bigRuns.get(), "the refused call ran again on replay");
        assertEquals(2, store.get("user-1", 0, "act", EVENT).getCallResults().size());
    }

    @ParameterizedTest
    @MethodSource("stores")
    void aMissingSeqNumHidesEveryLaterOneOfThatKeyOnly(String kind) throws Exception {
        NativeActionStateStore store = open(kind);
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

    @ParameterizedTest
    @MethodSource("stores")
    void longOneStringOneAndIntegerOneAreDifferentKeys(String kind) throws Exception {
        NativeActionStateStore store = open(kind);
        store.put(1L, 0, "act", EVENT, stateWithOutput("long"));
        store.put("1", 0, "act", EVENT, stateWithOutput("string"));
        store.put(1, 0, "act", EVENT, stateWithOutput("int"));
        store.put(new byte[] {'1'}, 0, "act", EVENT, stateWithOutput("bytes"));
        assertEquals("long", output(store.get(1L, 0, "act", EVENT)));
        assertEquals("string", output(store.get("1", 0, "act", EVENT)));
        assertEquals("int", output(store.get(1, 0, "act", EVENT)));
        assertEquals("bytes", output(store.get(new byte[] {'1'}, 0, "act", EVENT)));
        store.pruneState(1L, 0);
        assertNull(store.get(1L, 0, "act", EVENT));
        assertEquals("string", output(store.get("1", 0, "act", EVENT)), "pruning Long 1 leaves \"1\" alone");
    }

    @ParameterizedTest
    @MethodSource("stores")
    void underscoresInKeysAndActionNamesDoNotCollide(String kind) throws Exception {
        NativeActionStateStore store = open(kind);
        // Flink Agents' "key_seq_action" form makes both of these "a_1_2_x".
        store.put("a_1", 2, "x", EVENT, stateWithOutput("first"));
        store.put("a", 1, "2_x", EVENT, stateWithOutput("second"));
        assertEquals("first", output(store.get("a_1", 2, "x", EVENT)));
        assertEquals("second", output(store.get("a", 1, "2_x", EVENT)));
        store.pruneState("a", 5);
        assertEquals("first", output(store.get("a_1", 2, "x", EVENT)), "pruning key a leaves key a_1 alone");
    }

    @ParameterizedTest
    @MethodSource("stores")
    void typedKeysUseClassNameAndToString(String kind) throws Exception {
        NativeActionStateStore store = open(kind);
        store.put(new Pair("x", 1), 0, "act", EVENT, stateWithOutput("pair"));
        store.put("Pair(x,1)", 0, "act", EVENT, stateWithOutput("string"));
        assertEquals("pair", output(store.get(new Pair("x", 1), 0, "act", EVENT)));
        assertEquals("string", output(store.get("Pair(x,1)", 0, "act", EVENT)));
        IllegalArgumentException refused = assertThrows(IllegalArgumentException.class,
                () -> store.put(new Object(), 0, "act", EVENT, new ActionState()));
        assertTrue(refused.getMessage().contains("toString"), refused.getMessage());
    }

    @ParameterizedTest
    @MethodSource("stores")
    void pruneDropsEntriesUpToTheSeqNumOfThatKey(String kind) throws Exception {
        NativeActionStateStore store = open(kind);
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

    /**
     * What the Flink operators read through the interface: the file store counts its entries and
     * the bytes it appended; the in-memory store counts its entries and answers -1 (not counted)
     * for bytes, as its StoreStats does.
     */
    @ParameterizedTest
    @MethodSource("stores")
    void liveEntriesAndBytesAppendedFollowTheStoreStats(String kind) throws Exception {
        NativeActionStateStore store = open(kind);
        ActionStateStore viaInterface = store;
        assertEquals(0, viaInterface.liveEntries());
        store.put("k", 0, "act", EVENT, stateWithOutput("first"));
        store.put("k", 1, "act", EVENT, stateWithOutput("second"));
        assertEquals(2, viaInterface.liveEntries());
        store.pruneState("k", 0);
        assertEquals(1, viaInterface.liveEntries());
        assertEquals(store.stats().entries(), viaInterface.liveEntries());
        if (kind.equals("memory")) {
            assertEquals(-1, viaInterface.bytesAppended());
            assertEquals(-1, store.stats().bytesAppended(), "StoreStats: -1 for the in-memory store");
        } else {
            assertTrue(viaInterface.bytesAppended() > 0, "puts and a prune were appended");
            assertEquals(store.stats().bytesAppended(), viaInterface.bytesAppended());
        }
    }

    @ParameterizedTest
    @MethodSource("stores")
    void openContextJournalsEveryCallAndReplaysItInTheNextContext(String kind) throws Exception {
        NativeActionStateStore store = open(kind);
        CountedCall chat = new CountedCall("chat", "hello");
        CountedCall tool = new CountedCall("tool-call:t1", "42");
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
        assertEquals(1, chat.runs.get(), "replayed, not run again");
        assertEquals(1, tool.runs.get());
    }

    @Test
    void eachJournalMutationIsOneDeltaRecordOfConstantSize() throws Exception {
        NativeActionStateStore store = open("file");
        long[] recordBytes = new long[40];
        try (DurableExecutionContext ctx = store.openContext("user", 0, "act", EVENT, new ActionState())) {
            RunnerContextImpl runner = new RunnerContextImpl(ctx);
            for (int i = 0; i < recordBytes.length; i++) {
                StoreStats before = store.stats();
                runner.durableExecute(new CountedCall(String.format("tool-call:%04d", i), "payload"));
                StoreStats after = store.stats();
                assertEquals(before.recordsAppended() + 1, after.recordsAppended(), "one record per call");
                recordBytes[i] = after.bytesAppended() - before.bytesAppended();
            }
        }
        assertEquals(recordBytes[0], recordBytes[recordBytes.length - 1],
                "call 40 costs what call 1 cost: the whole state is not rewritten: " + Arrays.toString(recordBytes));
    }

    @Test
    void fileStoreReopenedFindsEverythingIncludingJournals() throws Exception {
        Path dir = Files.createDirectories(tmp.resolve("reopen"));
        CountedCall call = new CountedCall("tool-call:once", "v");
        try (NativeActionStateStore store = ActionStateStores.openFileStore(dir)) {
            store.put(5L, 1, "act", EVENT, stateWithOutput("done"));
            try (DurableExecutionContext ctx = store.openContext(5L, 2, "act", EVENT, null)) {
                new RunnerContextImpl(ctx).durableExecute(call);
            }
        }
        try (NativeActionStateStore store = ActionStateStores.openFileStore(dir)) {
            assertEquals(0, store.stats().createdOnOpen());
            assertEquals("done", output(store.get(5L, 1, "act", EVENT)));
            try (DurableExecutionContext ctx = store.openContext(5L, 2, "act", EVENT, null)) {
                assertEquals("v", new RunnerContextImpl(ctx).durableExecute(call));
            }
        }
        assertEquals(1, call.runs.get(), "the reopened store replayed the call");
    }

    @Test
    void aSecondOpenOfTheSameDirectoryIsRefusedUntilTheFirstCloses() throws Exception {
        Path dir = Files.createDirectories(tmp.resolve("locked"));
        NativeActionStateStore first = track(ActionStateStores.openFileStore(dir));
        JournalException refused = assertThrows(JournalException.class, () -> ActionStateStores.openFileStore(dir));
        assertEquals(JournalException.Code.STORE_LOCKED, refused.getCode());
        assertTrue(refused.getMessage().contains(dir.toString()), refused.getMessage());
        first.close();
        track(ActionStateStores.openFileStore(dir)).close();
    }

    @Test
    void aBadDirectoryIsAnErrorNamingThePath() throws Exception {
        Path missing = tmp.resolve("does-not-exist");
        JournalException noDir = assertThrows(JournalException.class, () -> ActionStateStores.openFileStore(missing));
        assertEquals(JournalException.Code.STORE_IO, noDir.getCode());
        assertTrue(noDir.getMessage().contains(missing.toString()), noDir.getMessage());
        Path file = Files.write(tmp.resolve("a-file"), new byte[] {1});
        JournalException notDir = assertThrows(JournalException.class, () -> ActionStateStores.openFileStore(file));
        assertTrue(notDir.getMessage().contains(file.toString()), notDir.getMessage());
        assertThrows(IllegalArgumentException.class, () -> FileStoreOptions.defaults().groupCommit(0));
    }

    @ParameterizedTest
    @MethodSource("stores")
    void aClosedStoreRefusesEveryCallAndItsOpenJournalsFailCleanly(String kind) throws Exception {
        NativeActionStateStore store = open(kind);
        DurableExecutionContext ctx = store.openContext("k", 0, "act", EVENT, null);
        store.close();
        store.close();
        assertTrue(store.isClosed());
        List<Executable> calls = Arrays.asList(
                () -> store.get("k", 0, "act", EVENT),
                () -> store.put("k", 0, "act", EVENT, new ActionState()),
                () -> store.openContext("k", 0, "act", EVENT, null),
                () -> store.pruneState("k", 0),
                store::getRecoveryMarker,
                () -> store.rebuildState(Collections.emptyList()),
                store::sync,
                store::stats);
        for (Executable call : calls) {
            assertThrows(IllegalStateException.class, call::run);
        }
        JournalException closed = assertThrows(JournalException.class, () -> ctx.recordCallCompletion("f", null, null));
        assertEquals(JournalException.Code.CLOSED, closed.getCode());
        assertEquals(0, ctx.size(), "the refused write was undone in memory too");
        ctx.close();
    }

    @ParameterizedTest
    @MethodSource("stores")
    void nullArgumentsAreNullPointerExceptions(String kind) throws Exception {
        NativeActionStateStore store = open(kind);
        assertThrows(NullPointerException.class, () -> store.put(null, 0, "act", EVENT, new ActionState()));
        assertThrows(NullPointerException.class, () -> store.put("k", 0, null, EVENT, new ActionState()));
        assertThrows(NullPointerException.class, () -> store.put("k", 0, "act", null, new ActionState()));
        assertThrows(NullPointerException.class, () -> store.put("k", 0, "act", EVENT, null));
        assertThrows(NullPointerException.class, () -> store.get("k", 0, "act", null));
        assertThrows(NullPointerException.class, () -> store.rebuildState(null));
        assertThrows(NullPointerException.class, () -> store.rebuildState(Collections.singletonList(null)));
        assertThrows(NullPointerException.class, () -> store.pruneState(null, 0));
        assertThrows(NullPointerException.class, () -> EventIdentity.occurrence(null));
    }

    @ParameterizedTest
    @MethodSource("stores")
    void recoveryMarkersOfThisStoreAreAcceptedAndOthersRefused(String kind) throws Exception {
        NativeActionStateStore store = open(kind);
        store.put("k", 0, "act", EVENT, new ActionState());
        byte[] marker = store.getRecoveryMarker();
        store.put("k", 1, "act", EVENT, new ActionState());
        store.rebuildState(Collections.singletonList(marker));
        assertNotNull(store.get("k", 1, "act", EVENT), "entries written after the marker are kept for replay");
        JournalException garbage = assertThrows(JournalException.class,
                () -> store.rebuildState(Collections.singletonList(new byte[] {1, 2, 3})));
        assertEquals(JournalException.Code.INVALID_ARGUMENT, garbage.getCode());
        if (kind.equals("file")) {
            NativeActionStateStore other = open("file");
            JournalException foreign = assertThrows(JournalException.class,
                    () -> other.rebuildState(Collections.singletonList(marker)));
            assertEquals(JournalException.Code.ILLEGAL_STATE, foreign.getCode());
        }
    }

    @Test
    void noJavaCodeCanWrapARawNativeHandle() {
        for (Constructor<?> c : DurableExecutionContext.class.getDeclaredConstructors()) {
            if (Arrays.asList(c.getParameterTypes()).contains(long.class)) {
                assertTrue(Modifier.isPrivate(c.getModifiers()), "only native code may call " + c);
            }
        }
        for (Method m : DurableExecutionContext.class.getMethods()) {
            boolean takesHandle = Modifier.isStatic(m.getModifiers()) && Arrays.asList(m.getParameterTypes()).contains(long.class);
            assertFalse(takesHandle, "no public factory over a raw handle: " + m);
        }
    }

    @ParameterizedTest
    @MethodSource("stores")
    void journalsOfManyThreadsShareOneStore(String kind) throws Exception {
        NativeActionStateStore store = open(kind);
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
                            runner.durableExecute(new CountedCall("tool-call:" + i, key + "/" + i));
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

    /** A call that may throw anything; JUnit's own Executable, restated to keep imports short. */
    @FunctionalInterface
    interface Executable {
        void run() throws Throwable;
    }

    /** A typed business key with a deterministic toString. */
    static final class Pair {
        final String name;
        final int n;

        Pair(String name, int n) {
            this.name = name;
            this.n = n;
        }

        @Override
        public String toString() {
            return "Pair(" + name + "," + n + ")";
        }
    }


    private static String json(ActionState state) {
        return ExactRecords.text(ActionStateSerde.serialize(state));
    }

    @ParameterizedTest
    @MethodSource("stores")
    void exactDataComesBackWholeAndThroughJournalDeltas(String kind) throws Exception {
        NativeActionStateStore store = open(kind);
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
        assertTrue(!expected.equals(record));
        assertEquals(expected, json(store.get("user-1", 0, "act", EVENT)));
    }

    @Test
    void exactDataSurvivesAFileStoreReopen() throws Exception {
        Path dir = Files.createDirectories(tmp.resolve("exact"));
        String record = ExactRecords.record();
        try (NativeActionStateStore store = ActionStateStores.openFileStore(dir)) {
            store.put(7L, 1, "act", EVENT, ActionStateSerde.deserialize(ExactRecords.utf8(record)));
        }
        try (NativeActionStateStore store = ActionStateStores.openFileStore(dir)) {
            assertEquals(record, json(store.get(7L, 1, "act", EVENT)));
        }
    }
}
