package io.durablejournal.store;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import io.durablejournal.ActionState;
import io.durablejournal.CallInterruptedException;
import io.durablejournal.CallResult;
import io.durablejournal.CallSemantics;
import io.durablejournal.DurableCall;
import io.durablejournal.DurableCallable;
import io.durablejournal.DurableExecutionContext;
import io.durablejournal.JournalException;
import io.durablejournal.RunnerContextImpl;
import io.durablejournal.identity.IdempotencyVectorsTest;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Idempotency keys read inside durable calls on a store's journal, and at-most-once calls: the
 * PENDING slot written before the body, the interruption a re-run sees, the reconciler that
 * decides instead, and batches.
 */
class DurableCallTest {
    /** The entry of the vectors' first cases: key "user-1", sequence number 3, action "reply". */
    private static final String OCCURRENCE = "occ:0123456789abcdef0123456789abcdef";
    private static final EventIdentity EVENT = EventIdentity.occurrence(OCCURRENCE);

    private final NativeActionStateStore store = ActionStateStores.inMemory();

    @AfterEach
    void close() {
        store.close();
    }

    private DurableExecutionContext open() {
        return store.openContext("user-1", 3, "reply", EVENT, null);
    }

    private static String key(JsonNode vector) {
        return vector.get("key").asText();
    }

    @Test
    void aCallReadsTheKeyOfItsVectorAndTheSecondCallWithTheSameIdTheNextOccurrence() throws Exception {
        List<String> keys = new ArrayList<>();
        try (DurableExecutionContext ctx = open()) {
            RunnerContextImpl runner = new RunnerContextImpl(ctx);
            for (int i = 0; i < 2; i++) {
                runner.durableExecute(DurableCallable.of("send-mail", String.class, () -> {
                    keys.add(DurableCall.current().idempotencyKey());
                    return DurableCall.current().callId();
                }));
            }
        }
        assertEquals(Arrays.asList(key(IdempotencyVectorsTest.named("string key, first call")),
                key(IdempotencyVectorsTest.named("same call, second occurrence"))), keys);
    }

    @Test
    void theKeyIsTheSameOnEveryRunAsyncAndInBatchesAndDiffersBetweenCalls() throws Exception {
        Map<String, String> first = new ConcurrentHashMap<>();
        Map<String, String> second = new ConcurrentHashMap<>();
        for (Map<String, String> keys : Arrays.asList(first, second)) {
            // The second run finds nothing recorded for the calls whose body failed to finish.
            try (DurableExecutionContext ctx = open()) {
                RunnerContextImpl runner = new RunnerContextImpl(ctx);
                runner.durableExecuteAsync(DurableCallable.of("async", String.class, () -> record(keys)));
                runner.durableExecuteAll(Arrays.asList(
                        DurableCallable.of("a", String.class, () -> record(keys)),
                        DurableCallable.of("b", String.class, () -> record(keys))));
                assertThrows(InterruptedException.class, () -> runner.durableExecute(DurableCallable.of("cut", String.class, () -> {
                    record(keys);
                    throw new InterruptedException("the process died during the call");
                })));
            }
            if (keys == first) {
                store.pruneState("user-1", 3);
            }
        }
        assertEquals(4, first.size());
        assertEquals(first, second);
        assertEquals(4, first.values().stream().distinct().count());
    }

    /** Notes the current call's key under its id (batch calls run in parallel). */
    private static String record(Map<String, String> keys) {
        keys.put(DurableCall.current().callId(), DurableCall.current().idempotencyKey());
        return "ok";
    }

    @Test
    void outsideACallThereIsNoCurrentCallAndAJournalWithoutAnEntryHasNoKey() throws Exception {
        assertThrows(IllegalStateException.class, DurableCall::current);
        try (DurableExecutionContext bare = new DurableExecutionContext(new ActionState(), null)) {
            RunnerContextImpl runner = new RunnerContextImpl(bare);
            JournalException e = assertThrows(JournalException.class, () -> runner.durableExecute(
                    DurableCallable.of("x", String.class, () -> DurableCall.current().idempotencyKey())));
            assertEquals(JournalException.Code.ILLEGAL_STATE, e.getCode());
        }
        assertThrows(IllegalStateException.class, DurableCall::current, "the call's end leaves no current call");
    }

    @Test
    void anAtMostOnceCallFindsItsPendingSlotStoredBeforeItsBodyRunsADefaultCallDoesNot() throws Exception {
        List<CallResult.Status> seenInBody = new ArrayList<>();
        try (DurableExecutionContext ctx = open()) {
            RunnerContextImpl runner = new RunnerContextImpl(ctx);
            runner.durableExecute(DurableCallable.atMostOnce("charge", String.class, () -> {
                seenInBody.add(store.get("user-1", 3, "reply", EVENT).getCallResults().get(0).getStatus());
                return "charged";
            }));
            runner.durableExecute(DurableCallable.of("mail", String.class, () -> {
                seenInBody.add(store.get("user-1", 3, "reply", EVENT).getCallResults().size() == 1 ? null : CallResult.Status.PENDING);
                return "sent";
            }));
        }
        assertEquals(Arrays.asList(CallResult.Status.PENDING, null), seenInBody);
        List<CallResult> slots = store.get("user-1", 3, "reply", EVENT).getCallResults();
        assertTrue(slots.get(0).isSuccess() && slots.get(1).isSuccess());
    }

    @Test
    void aRerunFindingAnAtMostOnceCallPendingThrowsCallInterruptedAndRunsTheCallsAfterIt() throws Exception {
        AtomicInteger bodies = new AtomicInteger();
        DurableCallable<String> charge = DurableCallable.atMostOnce("charge", String.class, () -> {
            bodies.incrementAndGet();
            throw new InterruptedException("the process died during the call");
        });
        String keyInFirstRun;
        try (DurableExecutionContext ctx = open()) {
            RunnerContextImpl runner = new RunnerContextImpl(ctx);
            runner.durableExecute(DurableCallable.of("before", String.class, () -> "b"));
            assertThrows(InterruptedException.class, () -> runner.durableExecute(charge));
            keyInFirstRun = ctx.getActionState().getCallResults().get(1).isPending() ? "pending" : "not pending";
        }
        assertEquals("pending", keyInFirstRun);
        for (int run = 0; run < 2; run++) {
            try (DurableExecutionContext ctx = open()) {
                RunnerContextImpl runner = new RunnerContextImpl(ctx);
                assertEquals("b", runner.durableExecute(DurableCallable.of("before", String.class, () -> "again")));
                CallInterruptedException e = assertThrows(CallInterruptedException.class, () -> runner.durableExecute(charge));
                assertEquals(JournalException.Code.CALL_INTERRUPTED, e.getCode());
                assertEquals("charge", e.getCallId());
                assertEquals(1, e.getPosition());
                assertEquals("str:user-1", e.getKey());
                assertEquals(Long.valueOf(3), e.getSequenceNumber());
                assertEquals("reply", e.getActionName());
                assertTrue(e.getIdempotencyKey().startsWith("idem:"), e.getIdempotencyKey());
                assertTrue(e.getMessage().contains("at-most-once call 'charge' at call index 1"), e.getMessage());
                assertEquals("after", runner.durableExecute(DurableCallable.of("after", String.class, () -> "after")));
            }
        }
        assertEquals(1, bodies.get(), "the body ran once, in the run that was interrupted");
        List<CallResult> slots = store.get("user-1", 3, "reply", EVENT).getCallResults();
        assertTrue(slots.get(1).isPending(), "nothing was recorded for the interrupted call");
        assertTrue(slots.get(2).isSuccess());
    }

    @Test
    void aReconcilerDecidesOverAnInterruptedAtMostOnceCallWithItsKey() throws Exception {
        List<String> keys = new ArrayList<>();
        DurableCallable<String> interrupted = DurableCallable.atMostOnce("charge", String.class, () -> {
            keys.add(DurableCall.current().idempotencyKey());
            throw new InterruptedException("died");
        });
        try (DurableExecutionContext ctx = open()) {
            assertThrows(InterruptedException.class, () -> new RunnerContextImpl(ctx).durableExecute(interrupted));
        }
        DurableCallable<String> reconciled = DurableCallable.atMostOnce("charge", String.class, () -> "must not run", () -> {
            keys.add(DurableCall.current().idempotencyKey());
            return "the service had it";
        });
        try (DurableExecutionContext ctx = open()) {
            assertEquals("the service had it", new RunnerContextImpl(ctx).durableExecute(reconciled));
        }
        assertEquals(2, keys.size());
        assertEquals(keys.get(0), keys.get(1), "the reconciler asks about the key the body used");
        assertTrue(store.get("user-1", 3, "reply", EVENT).getCallResults().get(0).isSuccess());
    }

    @Test
    void theRunnersDefaultMakesUndeclaredCallsAtMostOnceAndADeclaredSemanticsWins() throws Exception {
        try (DurableExecutionContext ctx = open()) {
            RunnerContextImpl runner = new RunnerContextImpl(ctx);
            runner.setDefaultCallSemantics(CallSemantics.AT_MOST_ONCE);
            assertThrows(InterruptedException.class, () -> runner.durableExecute(DurableCallable.of("a", String.class, () -> {
                throw new InterruptedException("died");
            })));
        }
        try (DurableExecutionContext ctx = open()) {
            RunnerContextImpl runner = new RunnerContextImpl(ctx);
            runner.setDefaultCallSemantics(CallSemantics.AT_MOST_ONCE);
            assertThrows(CallInterruptedException.class, () -> runner.durableExecute(DurableCallable.of("a", String.class, () -> "x")));
        }
        try (DurableExecutionContext ctx = open()) {
            RunnerContextImpl runner = new RunnerContextImpl(ctx);
            runner.setDefaultCallSemantics(CallSemantics.AT_MOST_ONCE);
            DurableCallable<String> declaredAtLeastOnce = DurableCallable.atLeastOnce("a", String.class, () -> "ran again");
            assertEquals(CallSemantics.AT_LEAST_ONCE, declaredAtLeastOnce.semantics());
            assertEquals("ran again", runner.durableExecute(declaredAtLeastOnce));
        }
    }

    @Test
    void aBatchInterruptsItsAtMostOnceCallsLeftPendingAndRunsTheOthersAgain() throws Exception {
        AtomicInteger atMostOnceRuns = new AtomicInteger();
        AtomicInteger defaultRuns = new AtomicInteger();
        for (int run = 0; run < 2; run++) {
            boolean dies = run == 0;
            List<DurableCallable<?>> batch = Arrays.asList(
                    DurableCallable.atMostOnce("charge", String.class, () -> {
                        atMostOnceRuns.incrementAndGet();
                        if (dies) {
                            throw new InterruptedException("died");
                        }
                        return "charged";
                    }),
                    DurableCallable.of("mail", String.class, () -> {
                        defaultRuns.incrementAndGet();
                        if (dies) {
                            throw new InterruptedException("died");
                        }
                        return "sent";
                    }));
            try (DurableExecutionContext ctx = open()) {
                RunnerContextImpl runner = new RunnerContextImpl(ctx);
                Exception e = assertThrows(Exception.class, () -> runner.durableExecuteAll(batch));
                if (dies) {
                    assertTrue(e instanceof InterruptedException, e.toString());
                } else {
                    CallInterruptedException interrupted = (CallInterruptedException) e;
                    assertEquals("charge", interrupted.getCallId());
                    assertEquals(0, interrupted.getPosition());
                    assertNotEquals(null, interrupted.getIdempotencyKey());
                }
            }
        }
        assertEquals(1, atMostOnceRuns.get(), "the at-most-once call of the batch never ran twice");
        assertEquals(2, defaultRuns.get(), "the default call ran again");
        List<CallResult> slots = store.get("user-1", 3, "reply", EVENT).getCallResults();
        assertTrue(slots.get(0).isPending());
        assertTrue(slots.get(1).isSuccess());
    }

    @Test
    void withoutAJournalCallsJustRunWhateverTheirSemantics() throws Exception {
        RunnerContextImpl runner = new RunnerContextImpl(null);
        runner.setDefaultCallSemantics(CallSemantics.AT_MOST_ONCE);
        assertEquals("ran", runner.durableExecute(DurableCallable.atMostOnce("a", String.class, () -> "ran")));
        assertNull(runner.getCurrentCallResultFields());
    }
}
