package io.durablejournal;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.durablejournal.store.ActionStateStores;
import io.durablejournal.store.EventIdentity;
import io.durablejournal.store.NativeActionStateStore;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * {@link SplitIdPrimitives}: the native core joins a call's function id and args digest on the
 * primitive's crossing and splits a slot's id back, exactly as {@code identity::call_id_with_digest}
 * and {@code identity::split_call_id} (Java restates neither rule, so these check what crosses).
 */
class SplitIdPrimitivesTest {
    private static final String DIGEST = "0123456789abcdef";
    private static final byte[] ONE = "1".getBytes(StandardCharsets.UTF_8);

    private static List<String> ids(DurableExecutionContext journal) {
        String[] ids = journal.getActionState().getCallResults().stream().map(CallResult::getFunctionId).toArray(String[]::new);
        return Arrays.asList(ids);
    }

    @Test
    void eachPrimitiveFilesTheCallUnderTheIdTheCoreJoins() {
        try (DurableExecutionContext journal = new DurableExecutionContext(new ActionState(), null)) {
            SplitIdPrimitives calls = journal.splitIdPrimitives();
            calls.recordCallCompletion("f", DIGEST, ONE, null);
            calls.recordCallCompletion("g", "", ONE, null);
            calls.recordCallCompletion("h", null, ONE, null);
            calls.reservePendingBatch(Arrays.asList("b1", "b2", "b3"), Arrays.asList(DIGEST, "", null));
            calls.finalizeCallAt(3, "b1", DIGEST, ONE, null);
            journal.advanceCallIndexBy(3);
            calls.appendPendingCall("p", DIGEST);
            calls.finalizeCurrentCall("p", DIGEST, ONE, null);
            assertEquals(Arrays.asList("f::" + DIGEST, "g", "h", "b1::" + DIGEST, "b2", "b3", "p::" + DIGEST), ids(journal));
            assertEquals(CallResult.Status.SUCCEEDED, journal.getActionState().getCallResults().get(3).getStatus());
            assertThrows(IllegalArgumentException.class, () -> calls.reservePendingBatch(Arrays.asList("x"), Arrays.asList()));
            assertThrows(NullPointerException.class, () -> calls.appendPendingCall(null, DIGEST));
            assertThrows(IllegalArgumentException.class, () -> calls.appendPendingCall("q", "lone \ud800"));
            assertEquals(7, journal.size(), "a refused call changes nothing");
        }
    }

    @Test
    void aRecordedCallMatchesByItsJoinedIdAndADifferentDigestIsAnotherCall() {
        ActionState state = new ActionState();
        state.addCallResult(new CallResult("f::" + DIGEST, ONE, null));
        state.addCallResult(new CallResult("f::" + DIGEST, ONE, null));
        state.addCallResult(new CallResult("g", ONE, null));
        try (DurableExecutionContext journal = new DurableExecutionContext(state, null)) {
            SplitIdPrimitives calls = journal.splitIdPrimitives();
            Object[] hit = calls.matchNextOrClearSubsequentCallResult("f", DIGEST);
            assertEquals(Boolean.TRUE, hit[0]);
            assertArrayEquals(ONE, (byte[]) hit[1]);
            // The whole id as the function id, no digest: the same joined id, so the same call.
            assertEquals(Boolean.TRUE, calls.matchNextOrClearSubsequentCallResult("f::" + DIGEST, "")[0]);
            assertNull(calls.matchNextOrClearSubsequentCallResult("g", DIGEST), "g::digest is not g");
            assertEquals(2, journal.size(), "the miss cut the journal there");
            assertEquals(1, journal.getDivergedCallCount(), "the divergence came back on the miss's crossing and was reported");
        }
    }

    /**
     * The recorded hits of a resuming context are compared in Java by the whole id; a call named
     * by parts never meets them: its primitive opens the native journal, which matches the id it
     * joins, so neither naming of the same id ({@code ("f", digest)}, {@code ("f::" + digest, "")})
     * can get a wrong answer from a hit.
     */
    @Test
    void aCallNamedByPartsIsDecidedByTheNativeJournalNeverByTheRecordedHits() {
        String id = "f::" + DIGEST;
        for (String[] parts : new String[][] {{"f", DIGEST}, {id, ""}, {id, null}}) {
            ActionState entry = new ActionState();
            entry.addCallResult(new CallResult(id, ONE, null));
            entry.addCallResult(new CallResult(id, ONE, null));
            java.util.concurrent.atomic.AtomicInteger opened = new java.util.concurrent.atomic.AtomicInteger();
            byte[] idBytes = id.getBytes(StandardCharsets.UTF_8);
            byte[] packed = Arrays.copyOf(idBytes, idBytes.length + ONE.length);
            System.arraycopy(ONE, 0, packed, idBytes.length, ONE.length);
            List<JournalSlot> hits = JournalSlot.recorded(packed, new int[] {idBytes.length}, new int[] {ONE.length},
                    new byte[][] {null}, new int[] {CallResult.Status.SUCCEEDED.ordinal()}, new byte[][] {null});
            try (DurableExecutionContext journal = DurableExecutionContext.resuming(hits, () -> {
                opened.incrementAndGet();
                return new DurableExecutionContext(entry, null);
            })) {
                Object[] hit = journal.splitIdPrimitives().matchNextOrClearSubsequentCallResult(parts[0], parts[1]);
                assertEquals(Boolean.TRUE, hit[0], Arrays.toString(parts));
                assertEquals(1, opened.get(), "the native journal decided " + Arrays.toString(parts));
                assertNull(journal.splitIdPrimitives().matchNextOrClearSubsequentCallResult("f", "fedcba9876543210"));
                assertEquals(1, journal.getDivergedCallCount());
            }
        }
    }

    @Test
    void aSlotReadForTheBridgeComesBackWithItsIdSplitByTheCore() {
        ActionState state = new ActionState();
        state.addCallResult(new CallResult("tools.search::" + DIGEST, ONE, null));
        state.addCallResult(new CallResult("a::b", ONE, null));
        state.addCallResult(new CallResult("\ud83d\ude00::" + DIGEST, ONE, null));
        state.addCallResult(CallResult.pending("plain"));
        state.addCallResult(new CallResult("lone-\ud800::" + DIGEST, ONE, null));
        try (DurableExecutionContext journal = new DurableExecutionContext(state, null)) {
            SplitIdPrimitives calls = journal.splitIdPrimitives();
            Object[] first = calls.getCurrentCallResultFields();
            assertEquals(Arrays.asList("tools.search", DIGEST, "SUCCEEDED"), Arrays.asList(first).subList(0, 3));
            assertArrayEquals(ONE, (byte[]) first[3]);
            assertNull(first[4]);
            assertEquals(Arrays.asList("a::b", ""), Arrays.asList(calls.getCallResultFieldsAt(1)).subList(0, 2),
                    "only a 16-hex-digit tail is a digest");
            assertEquals(Arrays.asList("\ud83d\ude00", DIGEST), Arrays.asList(calls.getCallResultFieldsAt(2)).subList(0, 2));
            assertEquals(Arrays.asList("plain", "", "PENDING"), Arrays.asList(calls.getCallResultFieldsAt(3)).subList(0, 3));
            Object[] lone = calls.getCallResultFieldsAt(4);
            assertEquals("", lone[1], "an id that is not well-formed Unicode has no digest");
            assertTrue(((String) lone[0]).endsWith("::" + DIGEST), (String) lone[0]);
            assertNull(calls.getCallResultFieldsAt(5));
            assertThrows(IndexOutOfBoundsException.class, () -> calls.getCallResultFieldsAt(-1));
            // The context's own reads keep the id whole.
            assertEquals("tools.search::" + DIGEST, journal.getCurrentCallResultFields()[0]);
        }
    }

    @Test
    void theBridgesCurrentCallGetsTheJoinedIdAndTheKeyOfThatId() {
        try (NativeActionStateStore store = ActionStateStores.inMemory();
                DurableExecutionContext journal = store.openContext("user-1", 3, "reply", EventIdentity.occurrence("occ:1"), null)) {
            String[] idAndKey = journal.splitIdPrimitives().callIdAndIdempotencyKeyAt(0, "f", DIGEST);
            assertEquals("f::" + DIGEST, idAndKey[0]);
            assertEquals(journal.idempotencyKeyAt(0, "f::" + DIGEST), idAndKey[1]);
            assertEquals(journal.idempotencyKeyAt(0, "f"), journal.splitIdPrimitives().callIdAndIdempotencyKeyAt(0, "f", "")[1]);
        }
        try (DurableExecutionContext journal = new DurableExecutionContext(new ActionState(), null)) {
            JournalException noEntry = assertThrows(JournalException.class,
                    () -> journal.splitIdPrimitives().callIdAndIdempotencyKeyAt(0, "f", DIGEST));
            assertEquals(JournalException.Code.ILLEGAL_STATE, noEntry.getCode(), "a journal of no store entry has no keys");
        }
    }
}
