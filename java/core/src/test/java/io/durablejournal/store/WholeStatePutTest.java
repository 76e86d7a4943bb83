package io.durablejournal.store;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static io.durablejournal.store.ActionStateStoreContract.slot;
import static io.durablejournal.store.ActionStateStoreContract.stateJson;

import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.durablejournal.ActionState;
import io.durablejournal.ActionStateSerde;
import io.durablejournal.CallResult;
import io.durablejournal.store.internal.ResumingEntry;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Base64;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The store driven the way Flink Agents 0.3.1's operator drives its ActionStateStore: {@code put}
 * with the whole ActionState so far after every durable call (n + 2 puts per action of n calls).
 * The native store writes only what changed, so bytes per action grow linearly with the calls,
 * and {@code get} returns exactly the last state put. (JSON puts read back exactly on every store:
 * {@link ActionStateStoreContract}.)
 */
class WholeStatePutTest extends StoreFixture {
    private static final EventIdentity EVENT = EventIdentity.occurrence("occ-1");
    private static final JsonNodeFactory JSON = JsonNodeFactory.instance;
    private static final int PAYLOAD = 1024;

    private static ActionState initialState() {
        ActionState state = new ActionState();
        ObjectNode event = JSON.objectNode().put("@class", "org.example.InputEvent").put("input", "question");
        state.setTaskEvent(event);
        return state;
    }

    private static CallResult call(int i) {
        byte[] payload = new byte[PAYLOAD];
        Arrays.fill(payload, (byte) 'x');
        return new CallResult(String.format("tool-call:%05d", i), payload, null);
    }

    /**
     * One action of {@code n} calls of 1 KB as 0.3.1's operator persists it: the initial state, the
     * whole state after each call, then the state read back with its memory update and output added
     * and marked completed. Returns the bytes the store appended.
     */
    private static long bytesOfOneAction(NativeActionStateStore store, long seq, int n) {
        long before = store.stats().bytesAppended();
        ActionState state = initialState();
        store.put("user", seq, "act", EVENT, state);
        for (int i = 0; i < n; i++) {
            state.addCallResult(call(i));
            store.put("user", seq, "act", EVENT, state);
        }
        ActionState last = store.get("user", seq, "act", EVENT);
        assertEquals(state, last, "get returns the last state put");
        last.addShortTermMemoryUpdate(JSON.objectNode().put("path", "answers").put("value", 1));
        last.addOutputEvent(JSON.objectNode().put("@class", "org.example.OutputEvent").put("output", "answer"));
        last.markCompleted();
        store.put("user", seq, "act", EVENT, last);
        assertEquals(last, store.get("user", seq, "act", EVENT));
        return store.stats().bytesAppended() - before;
    }

    @Test
    void bytesPerActionOfWholeStatePutsGrowLinearlyWithTheCalls() throws Exception {
        NativeActionStateStore store = open("file");
        long base = bytesOfOneAction(store, 0, 0);
        long perCall = bytesOfOneAction(store, 1, 1) - base;
        for (int n : new int[] {10, 50}) {
            assertEquals(base + n * perCall, bytesOfOneAction(store, n, n), "n = " + n);
        }
        assertTrue(perCall >= PAYLOAD && perCall < PAYLOAD + 100, perCall + " bytes per 1 KB call");
        // What a whole-state store writes for the same 50-call action: every state, serialized.
        long wholeStates = 0;
        ActionState state = initialState();
        for (int i = 0; i <= 50; i++) {
            wholeStates += ActionStateSerde.serialize(state).length;
            state.addCallResult(call(i));
        }
        assertTrue(wholeStates > 15 * bytesOfOneAction(store, 100, 50), "whole states: " + wholeStates);
    }

    /**
     * getResuming (Flink Agents' adapter, for an action on the native journal): the JSON without
     * call results, every slot counted, and the leading slots that replay as recorded, exactly: a
     * success, a null result, a failure with its payload; the slot with an args digest ends them.
     */
    @ParameterizedTest
    @MethodSource("stores")
    void getResumingSplitsTheReplayableSlotsOffTheJson(String kind) throws Exception {
        NativeActionStateStore store = open(kind);
        String success = slot("chat", "SUCCEEDED", "ImEi");
        String nullResult = slot("tool-call:null", "SUCCEEDED", null);
        String failure = "{\"functionId\":\"tool-call:fails\",\"status\":\"FAILED\",\"resultPayload\":null,"
                + "\"exceptionPayload\":\"AP+A\"}";
        String digested = "{\"functionId\":\"py-call\",\"argsDigest\":\"0123456789abcdef\",\"status\":\"SUCCEEDED\","
                + "\"resultPayload\":\"ImEi\",\"exceptionPayload\":null}";
        String after = slot("tool-call:after", "SUCCEEDED", "ImEi");
        store.putJson("user", 3, "act", EVENT, stateJson(false, "", success, nullResult, failure, digested, after));

        ResumingEntry entry = store.getResuming("user", 3, "act", EVENT);
        assertTrue(entry.isSplit());
        assertFalse(entry.isCompleted());
        assertEquals(ActionStateSerde.deserialize(stateJson(false, "")), ActionStateSerde.deserialize(entry.stateJson()));
        assertEquals(5, entry.callCount());
        assertEquals(Arrays.asList(new CallResult("chat", "\"a\"".getBytes(StandardCharsets.UTF_8), null), new CallResult("tool-call:null", null, null),
                new CallResult("tool-call:fails", null, new byte[] {0, (byte) 0xff, (byte) 0x80})), entry.recordedHits());
        // The entry itself is untouched.
        assertEquals(5, store.get("user", 3, "act", EVENT).getCallResults().size());

        String output = "{\"@class\":\"org.example.OutputEvent\",\"output\":\"answer\"}";
        store.putJson("user", 4, "act", EVENT, stateJson(true, output));
        ResumingEntry completed = store.getResuming("user", 4, "act", EVENT);
        assertTrue(completed.isCompleted(), "said without decoding the JSON");
        assertEquals(ActionStateSerde.deserialize(stateJson(true, output)), ActionStateSerde.deserialize(completed.stateJson()));
        assertEquals(0, completed.callCount());
        assertTrue(completed.recordedHits().isEmpty());

        assertNull(store.getResuming("user", 2, "act", EVENT));
    }

    /**
     * An entry of many more hits than a native method may hold local references (sixteen, and
     * -Xcheck:jni warns past 32): every hit crosses, in order, each with its own id and payload.
     */
    @ParameterizedTest
    @MethodSource("stores")
    void getResumingHandsEveryHitOfALongEntry(String kind) throws Exception {
        NativeActionStateStore store = open(kind);
        int calls = 300;
        String[] slots = new String[calls];
        List<CallResult> expected = new ArrayList<>();
        for (int i = 0; i < calls; i++) {
            String result = "\"r" + i + "\"";
            slots[i] = slot("tool-call:" + i, "SUCCEEDED", Base64.getEncoder().encodeToString(result.getBytes(StandardCharsets.UTF_8)));
            expected.add(new CallResult("tool-call:" + i, result.getBytes(StandardCharsets.UTF_8), null));
        }
        store.putJson("user", 5, "act", EVENT, stateJson(false, "", slots));

        ResumingEntry entry = store.getResuming("user", 5, "act", EVENT);
        assertEquals(calls, entry.callCount());
        assertEquals(expected, entry.recordedHits());
    }

    /**
     * Small results cross packed with the ids and large ones on their own (rust/jni/store.rs):
     * either way each hit gets back exactly its own bytes, an empty result stays empty and a null
     * one null, an id keeps its non-ASCII text, and a failure its exception.
     */
    @ParameterizedTest
    @MethodSource("stores")
    void getResumingHandsEachResultBackWhateverItsSize(String kind) throws Exception {
        NativeActionStateStore store = open(kind);
        int[] sizes = {0, 1, 2047, 2048, 2049, 100_000, 3};
        List<String> slots = new ArrayList<>();
        List<CallResult> expected = new ArrayList<>();
        for (int i = 0; i < sizes.length; i++) {
            byte[] result = new byte[sizes[i]];
            for (int b = 0; b < result.length; b++) {
                result[b] = (byte) (i * 31 + b);
            }
            String id = "tool-call:" + i + (i % 2 == 0 ? ":outil-\u00e9\u2713" : "");
            slots.add(slot(id, "SUCCEEDED", Base64.getEncoder().encodeToString(result)));
            expected.add(new CallResult(id, result, null));
            if (i == 3) {
                slots.add(slot("tool-call:null", "SUCCEEDED", null));
                expected.add(new CallResult("tool-call:null", null, null));
                slots.add("{\"functionId\":\"tool-call:fails\",\"status\":\"FAILED\",\"resultPayload\":null,"
                        + "\"exceptionPayload\":\"AP+A\"}");
                expected.add(new CallResult("tool-call:fails", null, new byte[] {0, (byte) 0xff, (byte) 0x80}));
            }
        }
        store.putJson("user", 6, "act", EVENT, stateJson(false, "", slots.toArray(new String[0])));

        ResumingEntry entry = store.getResuming("user", 6, "act", EVENT);
        assertEquals(expected.size(), entry.callCount());
        assertEquals(expected, entry.recordedHits());
    }

    @Test
    void aReopenedFileStoreReplaysTheDeltasToTheLastStatePut() throws Exception {
        Path dir = Files.createDirectories(tmp.resolve("reopened"));
        ActionState last;
        try (NativeActionStateStore store = ActionStateStores.openFileStore(dir)) {
            bytesOfOneAction(store, 0, 3);
            last = initialState();
            store.put("user", 1, "act", EVENT, last);
            for (int i = 0; i < 5; i++) {
                last.addCallResult(call(i));
                store.put("user", 1, "act", EVENT, last);
            }
        }
        try (NativeActionStateStore store = ActionStateStores.openFileStore(dir)) {
            assertEquals(last, store.get("user", 1, "act", EVENT));
            assertTrue(store.get("user", 0, "act", EVENT).isCompleted());
            assertEquals((1 + 3 + 1) + (1 + 5), store.stats().recoveredRecords(), "one record per put");
        }
    }
}
