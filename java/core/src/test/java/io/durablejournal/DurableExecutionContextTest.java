package io.durablejournal;

import static io.durablejournal.ExactRecords.base64;
import static io.durablejournal.ExactRecords.nested;
import static io.durablejournal.ExactRecords.slot;
import static io.durablejournal.ExactRecords.text;
import static io.durablejournal.ExactRecords.utf8;
import static io.durablejournal.TestCalls.json;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.durablejournal.TestCalls.CountingPersister;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.function.Executable;

/** The spec §2.1 primitives as Java sees them, and the ways they refuse bad input. */
class DurableExecutionContextTest {
    private final CountingPersister persister = new CountingPersister();

    private DurableExecutionContext over(CallResult... slots) {
        ActionState state = new ActionState();
        for (CallResult slot : slots) {
            state.addCallResult(slot);
        }
        return new DurableExecutionContext(state, persister);
    }

    @Test
    void fourTupleCarriesIdStatusAndPayloads() {
        String id = "tool-call:邮件-📧";
        DurableExecutionContext ctx = over(new CallResult(id, json("1"), null), new CallResult("f", null, json("{}")), CallResult.pending("p"));
        Object[] first = ctx.getCurrentCallResultFields();
        assertEquals(id, first[0]);
        assertEquals("SUCCEEDED", first[1]);
        assertArrayEquals(json("1"), (byte[]) first[2]);
        assertNull(first[3]);
        assertEquals(Arrays.asList("f", "FAILED", null), Arrays.asList(ctx.getCallResultFieldsAt(1)).subList(0, 3));
        assertEquals(Arrays.asList("p", "PENDING", null, null), Arrays.asList(ctx.getCallResultFieldsAt(2)));
        assertNull(ctx.getCallResultFieldsAt(3));
    }

    @Test
    void matchReturnsHitTripleAndAdvances() {
        DurableExecutionContext ctx = over(new CallResult("a", json("1"), null), CallResult.pending("b"));
        Object[] hit = ctx.matchNextOrClearSubsequentCallResult("a");
        assertEquals(Boolean.TRUE, hit[0]);
        assertArrayEquals(json("1"), (byte[]) hit[1]);
        assertNull(hit[2]);
        assertEquals(1, ctx.getCurrentCallIndex());
        assertNull(ctx.matchNextOrClearSubsequentCallResult("b"), "a pending slot is a miss");
        assertEquals(2, ctx.size(), "and is kept");
        assertNull(ctx.matchNextOrClearSubsequentCallResult("other"));
        assertEquals(1, ctx.size(), "a different id cuts the journal at the index");
        assertEquals(0, persister.count(), "matching persists nothing");
    }

    @Test
    void recordAppendFinalizeAndClearPersistAsTheTableSays() {
        DurableExecutionContext ctx = over();
        ctx.recordCallCompletion("a", json("1"), null);
        assertEquals(1, persister.count());
        ctx.appendPendingCall("b");
        assertEquals(2, persister.count());
        assertEquals(1, ctx.getCurrentCallIndex(), "appending does not move the index");
        ctx.finalizeCurrentCall("b", null, json("{\"exceptionClass\":\"x\"}"));
        assertEquals(3, persister.count());
        assertEquals(2, ctx.getCurrentCallIndex());
        ctx.clearCallResultsFromAndPersist(1);
        assertEquals(4, persister.count());
        assertEquals(List.of(new CallResult("a", json("1"), null)), ctx.getActionState().getCallResults());
        ctx.clearCallResultsFromCurrentIndexAndPersist();
        assertEquals(5, persister.count());
    }

    @Test
    void batchPrimitives() {
        DurableExecutionContext ctx = over();
        ctx.reservePendingBatch(List.of("x", "y"));
        assertEquals(1, persister.count());
        ctx.finalizeCallAt(1, "y", json("2"), null);
        assertEquals(0, ctx.getCurrentCallIndex());
        ctx.advanceCallIndexBy(2);
        assertEquals(2, ctx.getCurrentCallIndex());
        assertEquals("PENDING", ctx.getCallResultFieldsAt(0)[1]);
        assertEquals("SUCCEEDED", ctx.getCallResultFieldsAt(1)[1]);
    }

    @Test
    void markCompletedDropsTheJournal() {
        DurableExecutionContext ctx = over(new CallResult("a", json("1"), null));
        ctx.markCompleted();
        ActionState state = persister.last();
        assertEquals(true, state.isCompleted());
        assertEquals(List.of(), state.getCallResults());
    }

    /** Each bad call: a clear exception, nothing persisted, the journal as it was. */
    private void assertRefusedUnchanged(DurableExecutionContext ctx, Class<? extends Throwable> type, Executable bad) {
        ActionState before = ctx.getActionState();
        int index = ctx.getCurrentCallIndex();
        int persisted = persister.count();
        assertThrows(type, bad);
        assertEquals(before, ctx.getActionState());
        assertEquals(index, ctx.getCurrentCallIndex());
        assertEquals(persisted, persister.count());
    }

    @Test
    void badInputIsRefusedAndChangesNothing() {
        DurableExecutionContext ctx = over(new CallResult("a", json("1"), null));
        assertRefusedUnchanged(ctx, IndexOutOfBoundsException.class, () -> ctx.getCallResultFieldsAt(-1));
        assertRefusedUnchanged(ctx, IndexOutOfBoundsException.class, () -> ctx.finalizeCallAt(-1, "a", null, null));
        assertRefusedUnchanged(ctx, IndexOutOfBoundsException.class, () -> ctx.clearCallResultsFromAndPersist(-2));
        assertRefusedUnchanged(ctx, IllegalArgumentException.class, () -> ctx.advanceCallIndexBy(-1));
        assertRefusedUnchanged(ctx, NullPointerException.class, () -> ctx.recordCallCompletion(null, null, null));
        assertRefusedUnchanged(ctx, NullPointerException.class, () -> ctx.appendPendingCall(null));
        assertRefusedUnchanged(ctx, NullPointerException.class, () -> ctx.reservePendingBatch(Arrays.asList("x", null)));
        assertRefusedUnchanged(ctx, IllegalArgumentException.class, () -> ctx.appendPendingCall("lone \ud800 surrogate"));

        JournalException outOfRange = assertThrows(JournalException.class, () -> ctx.clearCallResultsFromAndPersist(5));
        assertEquals(JournalException.Code.INDEX_OUT_OF_RANGE, outOfRange.getCode());
        JournalException beyond = assertThrows(JournalException.class, () -> ctx.advanceCallIndexBy(2));
        assertEquals(JournalException.Code.INDEX_OUT_OF_RANGE, beyond.getCode());
        JournalException noPending = assertThrows(JournalException.class, () -> ctx.finalizeCurrentCall("a", null, null));
        assertEquals(JournalException.Code.NO_MATCHING_PENDING_SLOT, noPending.getCode());
        JournalException slotExists = assertThrows(JournalException.class, () -> ctx.appendPendingCall("b"));
        assertEquals(JournalException.Code.SLOT_ALREADY_EXISTS, slotExists.getCode());
        assertRefusedUnchanged(ctx, JournalException.class, () -> ctx.finalizeCallAt(9, "a", null, null));
        assertEquals(0, persister.count());
    }

    @Test
    void failingPersisterPropagatesItsExceptionAndLeavesJournalUnchanged() {
        IllegalStateException diskFull = new IllegalStateException("disk full");
        DurableExecutionContext ctx = new DurableExecutionContext(new ActionState(), state -> { throw diskFull; });
        assertSame(diskFull, assertThrows(IllegalStateException.class, () -> ctx.recordCallCompletion("a", json("1"), null)));
        assertEquals(0, ctx.size());
        assertEquals(0, ctx.getCurrentCallIndex());
    }

    @Test
    void checkedPersisterFailureBecomesPersistFailed() {
        DurableExecutionContext ctx = new DurableExecutionContext(new ActionState(), state -> { throw new java.io.IOException("no space"); });
        JournalException e = assertThrows(JournalException.class, () -> ctx.appendPendingCall("a"));
        assertEquals(JournalException.Code.PERSIST_FAILED, e.getCode());
        assertEquals("no space", e.getCause().getMessage());
        assertEquals(0, ctx.size());
    }

    @Test
    void persisterMustNotReenterTheContext() {
        DurableExecutionContext[] self = new DurableExecutionContext[1];
        self[0] = new DurableExecutionContext(new ActionState(), state -> self[0].getCurrentCallIndex());
        IllegalStateException e = assertThrows(IllegalStateException.class, () -> self[0].recordCallCompletion("a", null, null));
        assertTrue(e.getMessage().startsWith("DurableExecutionContext was called from inside one of its own calls"), e.getMessage());
        assertEquals(0, self[0].size(), "the mutation whose persister failed was undone");
    }

    @Test
    void persisterThatClosesItsContextTakesEffectWhenTheCallReturns() {
        DurableExecutionContext[] self = new DurableExecutionContext[1];
        List<ActionState> persisted = new ArrayList<>();
        self[0] = new DurableExecutionContext(new ActionState(), state -> {
            persisted.add(state);
            self[0].close();
            self[0].close();
        });
        self[0].recordCallCompletion("a", json("1"), null);
        assertEquals(1, persisted.size());
        assertEquals("a", persisted.get(0).getCallResults().get(0).getFunctionId(), "the call that persisted completed");
        IllegalStateException e = assertThrows(IllegalStateException.class, self[0]::size);
        assertEquals("DurableExecutionContext is closed", e.getMessage());
        try (DurableExecutionContext later = over()) {
            assertEquals(0, later.getCurrentCallIndex(), "a context made afterwards starts clean");
            assertEquals(0, later.size());
        }
    }

    @Test
    void closeIsIdempotentAndLaterCallsFailFast() {
        DurableExecutionContext ctx = over(new CallResult("a", json("1"), null));
        ctx.close();
        ctx.close();
        assertThrows(IllegalStateException.class, ctx::getCurrentCallIndex);
        assertThrows(IllegalStateException.class, ctx::getCurrentCallResultFields);
        assertThrows(IllegalStateException.class, () -> ctx.recordCallCompletion("b", null, null));
        assertThrows(IllegalStateException.class, ctx::getActionState);
        RunnerContextImpl runner = new RunnerContextImpl(ctx);
        assertThrows(IllegalStateException.class, () -> runner.durableExecute(TestCalls.returning("a", "v")));
    }

    @Test
    void nullStateIsRefused() {
        assertThrows(NullPointerException.class, () -> new DurableExecutionContext(null, persister));
        assertThrows(NullPointerException.class, () -> new RunnerContextImpl(over()).durableExecute(null));
        DurableCallable<String> noId = TestCalls.returning(null, "v");
        assertThrows(NullPointerException.class, () -> new RunnerContextImpl(over()).durableExecute(noId));
    }

    @Test
    void snapshotsAndPersistedStatesKeepEveryBodyExactly() throws Exception {
        String record = ExactRecords.record();
        try (DurableExecutionContext ctx = new DurableExecutionContext(ActionStateSerde.deserialize(utf8(record)), persister)) {
            assertEquals(record, text(ActionStateSerde.serialize(ctx.getActionState())));
            // A re-run: the first call replays its exact result, the slot with a null id matches
            // no call, so the second call runs and cuts the journal there.
            RunnerContextImpl runner = new RunnerContextImpl(ctx);
            assertEquals(new java.math.BigDecimal(ExactRecords.RESULT),
                    runner.durableExecute(DurableCallable.of("tool-call:a", java.math.BigDecimal.class, () -> java.math.BigDecimal.ONE)));
            assertEquals("ran", runner.durableExecute(DurableCallable.of("tool-call:b", String.class, () -> "ran")));
            String expected = record.substring(0, record.indexOf("\"callResults\":[") + "\"callResults\":[".length())
                    + slot("\"tool-call:a\"", "\"\"", "SUCCEEDED", base64(ExactRecords.RESULT), "null") + ","
                    + slot("\"tool-call:b\"", "\"\"", "SUCCEEDED", base64("\"ran\""), "null")
                    + record.substring(record.indexOf("],\"completed\""));
            assertEquals(expected, text(ActionStateSerde.serialize(persister.last())));
            assertEquals(expected, text(ActionStateSerde.serialize(ctx.getActionState())));
        }
    }

    @Test
    void aSlotWithANullIdShowsANullIdInItsFourTuple() {
        String record = "{\"callResults\":[" + slot("null", "\"\"", "PENDING", "null", "null") + "]}";
        try (DurableExecutionContext ctx = new DurableExecutionContext(ActionStateSerde.deserialize(utf8(record)), persister)) {
            assertEquals(Arrays.asList(null, "PENDING", null, null), Arrays.asList(ctx.getCurrentCallResultFields()));
            assertNull(ctx.matchNextOrClearSubsequentCallResult("null"));
            assertEquals(0, ctx.size(), "a null id matches no call: the journal is cut there");
        }
    }

    @Test
    void aContextOpensOverBodiesNestedToJacksonsLimit() {
        ActionState deep = ActionStateSerde.deserialize(utf8("{\"taskEvent\":" + nested(999) + "}"));
        try (DurableExecutionContext ctx = new DurableExecutionContext(deep, persister)) {
            ctx.recordCallCompletion("a", json("1"), null);
            assertEquals(nested(999), persister.last().getTaskEventJson());
        }
        // A deeper body never gets this far: the setter refuses it (JsonNodeBodiesTest).
    }
}
