package io.durablejournal;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.durablejournal.TestCalls.CountingPersister;
import io.durablejournal.store.ActionStateStores;
import io.durablejournal.store.EventIdentity;
import io.durablejournal.store.NativeActionStateStore;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * A re-run that makes another call than the journal recorded, under each {@link DivergencePolicy}:
 * the first run recorded {@code a}, {@code b}, {@code c}; the re-run calls {@code a}, {@code x},
 * {@code c}.
 */
class DivergencePolicyTest {
    private final CountingPersister persister = new CountingPersister();
    private final CountingCall<String> a = TestCalls.returning("a", "A");
    private final CountingCall<String> b = TestCalls.returning("b", "B");
    private final CountingCall<String> c = TestCalls.returning("c", "C");
    private final CountingCall<String> x = TestCalls.returning("x", "X");
    /** What the first run persisted last: every re-run starts from it. */
    private ActionState recorded;
    /** The divergence warnings, through SLF4J (to Log4j, as on a Flink cluster). */
    private LogCapture log;

    @BeforeEach
    void recordFirstRun() throws Exception {
        log = new LogCapture(DurableExecutionContext.class.getName());
        try (DurableExecutionContext first = new DurableExecutionContext(new ActionState(), persister)) {
            RunnerContextImpl calls = new RunnerContextImpl(first);
            calls.durableExecute(a);
            calls.durableExecute(b);
            calls.durableExecute(c);
        }
        recorded = persister.last();
    }

    @AfterEach
    void stopCapture() {
        log.close();
    }

    private DurableExecutionContext rerun(DivergencePolicy policy) {
        DurableExecutionContext context = new DurableExecutionContext(recorded, persister);
        if (policy != null) {
            context.setDivergencePolicy(policy);
        }
        return context;
    }

    private static List<String> ids(ActionState state) {
        List<String> ids = new ArrayList<>();
        state.getCallResults().forEach(slot -> ids.add(slot.getFunctionId()));
        return ids;
    }

    @Test
    void theDefaultIsWarn() {
        try (DurableExecutionContext context = new DurableExecutionContext(new ActionState(), null)) {
            assertEquals(DivergencePolicy.WARN, context.getDivergencePolicy());
        }
    }

    @Test
    void cutRunsTheRestAgainSilently() throws Exception {
        try (DurableExecutionContext context = rerun(DivergencePolicy.CUT)) {
            RunnerContextImpl calls = new RunnerContextImpl(context);
            assertEquals("A", calls.durableExecute(a));
            assertEquals("X", calls.durableExecute(x));
            assertEquals("C", calls.durableExecute(c));
            assertEquals(List.of(1, 1, 2), List.of(a.calls.get(), x.calls.get(), c.calls.get()), "c runs again");
            assertEquals(0, calls.getDivergedCallCount());
            assertEquals(List.of("a", "x", "c"), ids(context.getActionState()));
        }
        assertEquals(new ArrayList<String>(), log.lines(), "nothing logged");
    }

    @Test
    void warnRunsTheRestAgainLogsAndCounts() throws Exception {
        try (DurableExecutionContext context = rerun(null)) {
            RunnerContextImpl calls = new RunnerContextImpl(context);
            assertEquals("A", calls.durableExecute(a));
            assertEquals("X", calls.durableExecute(x));
            assertEquals("C", calls.durableExecute(c));
            assertEquals(2, c.calls.get());
            assertEquals(1, calls.getDivergedCallCount(), "one divergence: the cut at x; c then ran past the end");
            assertEquals(1, calls.getReplayedCallCount());
            assertEquals(2, calls.getExecutedCallCount());
        }
        assertEquals(1, log.lines().size(), log.lines().toString());
        String warning = log.lines().get(0);
        assertTrue(warning.startsWith("WARN a durable call diverged"), warning);
        assertTrue(warning.contains("\"position\":1,\"recorded\":{\"functionId\":\"b\",\"argsDigest\":\"\","
                + "\"status\":\"SUCCEEDED\"},\"newCall\":{\"functionId\":\"x\",\"argsDigest\":null}"), warning);
    }

    @Test
    void failRefusesTheCallWithTheDiffAndKeepsTheJournal() throws Exception {
        int persistedBefore = persister.count();
        try (DurableExecutionContext context = rerun(DivergencePolicy.FAIL)) {
            RunnerContextImpl calls = new RunnerContextImpl(context);
            assertEquals("A", calls.durableExecute(a));
            NonDeterministicReplayException refused = assertThrows(NonDeterministicReplayException.class, () -> calls.durableExecute(x));
            assertEquals(JournalException.Code.NON_DETERMINISTIC_REPLAY, refused.getCode());
            assertEquals(0, x.calls.get(), "the new call did not run");
            assertEquals(1, refused.getPosition());
            assertEquals("b", refused.getRecordedCallId());
            assertEquals("", refused.getRecordedArgsDigest());
            assertEquals(CallResult.Status.SUCCEEDED, refused.getRecordedStatus());
            assertEquals("x", refused.getNewCallId());
            assertNull(refused.getNewArgsDigest());
            assertNull(refused.getKey(), "a context over a bare ActionState has no entry address");
            assertNull(refused.getSequenceNumber());
            assertTrue(refused.getMessage().contains("made call 'x' (args digest null) at call index 1, where the journal "
                    + "recorded call 'b' (args digest '', SUCCEEDED)"), refused.getMessage());
            assertEquals(List.of("a", "b", "c"), ids(context.getActionState()));
            // The deployment that makes the recorded calls replays all of them.
            assertEquals("B", calls.durableExecute(b));
            assertEquals("C", calls.durableExecute(c));
        }
        assertEquals(persistedBefore, persister.count(), "nothing persisted");
        assertEquals(List.of(1, 1, 1), List.of(a.calls.get(), b.calls.get(), c.calls.get()));
        assertEquals(new ArrayList<String>(), log.lines());
    }

    @Test
    void aReconcilableCallDivergesTheSameWay() throws Exception {
        CountingCall<String> reconcilable = TestCalls.reconcilable("x", "X", "R");
        try (DurableExecutionContext context = rerun(DivergencePolicy.FAIL)) {
            RunnerContextImpl calls = new RunnerContextImpl(context);
            calls.durableExecute(a);
            assertThrows(NonDeterministicReplayException.class, () -> calls.durableExecute(reconcilable));
            assertEquals(0, reconcilable.calls.get() + reconcilable.reconciles.get());
        }
        try (DurableExecutionContext context = rerun(DivergencePolicy.WARN)) {
            RunnerContextImpl calls = new RunnerContextImpl(context);
            calls.durableExecute(a);
            assertEquals("X", calls.durableExecute(reconcilable));
            assertEquals(1, calls.getDivergedCallCount());
        }
    }

    @Test
    void thePrimitiveFollowsThePolicyAndReportsTheNewCallsDigest() {
        try (DurableExecutionContext context = rerun(DivergencePolicy.FAIL)) {
            NonDeterministicReplayException refused = assertThrows(NonDeterministicReplayException.class,
                    () -> context.matchNextOrClearSubsequentCallResult("m.f", "0011223344556677"));
            assertEquals(0, refused.getPosition());
            assertEquals("0011223344556677", refused.getNewArgsDigest());
            assertEquals(3, context.size());
        }
        try (DurableExecutionContext context = rerun(DivergencePolicy.WARN)) {
            assertNull(context.matchNextOrClearSubsequentCallResult("m.f", "0011223344556677"));
            assertEquals(1, context.getDivergedCallCount());
            assertEquals(0, context.size(), "cut");
        }
        try (DurableExecutionContext context = rerun(DivergencePolicy.CUT)) {
            assertNull(context.matchNextOrClearSubsequentCallResult("m.f"));
            assertEquals(0, context.getDivergedCallCount());
        }
    }

    @Test
    void aBatchKeepsTheRecordedCallsThatMatchAndDivergesAtTheFirstOther() throws Exception {
        try (DurableExecutionContext context = rerun(DivergencePolicy.FAIL)) {
            RunnerContextImpl calls = new RunnerContextImpl(context);
            assertThrows(NonDeterministicReplayException.class, () -> calls.durableExecuteAll(List.of(a, x)));
            assertEquals(List.of(1, 0), List.of(a.calls.get(), x.calls.get()));
        }
        try (DurableExecutionContext context = rerun(DivergencePolicy.WARN)) {
            RunnerContextImpl calls = new RunnerContextImpl(context);
            assertEquals(List.of("A", "X"), calls.durableExecuteAll(List.of(a, x)));
            assertEquals(List.of(1, 1), List.of(a.calls.get(), x.calls.get()), "a replays, x runs");
            assertEquals(1, calls.getDivergedCallCount());
            assertEquals(List.of("a", "x"), ids(context.getActionState()));
        }
        try (DurableExecutionContext context = rerun(DivergencePolicy.CUT)) {
            RunnerContextImpl calls = new RunnerContextImpl(context);
            CountingCall<String> d = TestCalls.returning("d", "D");
            assertEquals(List.of("A", "B", "C", "D"), calls.durableExecuteAll(List.of(a, b, c, d)));
            assertEquals(List.of(1, 1, 1, 1), List.of(a.calls.get(), b.calls.get(), c.calls.get(), d.calls.get()),
                    "a longer batch keeps the recorded calls and runs only the new one");
        }
    }

    @Test
    void aContextFromAStoreNamesItsEntry() throws Exception {
        try (NativeActionStateStore store = ActionStateStores.inMemory()) {
            EventIdentity event = EventIdentity.rootOccurrence("user-1", 4);
            try (DurableExecutionContext first = store.openContext("user-1", 4, "reply", event, null)) {
                new RunnerContextImpl(first).durableExecute(b);
            }
            try (DurableExecutionContext again = store.openContext("user-1", 4, "reply", event, null)) {
                again.setDivergencePolicy(DivergencePolicy.FAIL);
                NonDeterministicReplayException refused = assertThrows(NonDeterministicReplayException.class,
                        () -> new RunnerContextImpl(again).durableExecute(x));
                assertEquals("str:user-1", refused.getKey());
                assertEquals(Long.valueOf(4), refused.getSequenceNumber());
                assertEquals("reply", refused.getActionName());
                assertArrayEquals(new Object[] {"b", "SUCCEEDED"}, new Object[] {refused.getRecordedCallId(),
                        refused.getRecordedStatus().name()});
            }
        }
    }

    @Test
    void thePolicyCanChangeOnAnOpenJournal() throws Exception {
        try (DurableExecutionContext context = rerun(DivergencePolicy.CUT)) {
            RunnerContextImpl calls = new RunnerContextImpl(context);
            assertEquals(3, context.size(), "opens the journal");
            context.setDivergencePolicy(DivergencePolicy.FAIL);
            assertEquals(DivergencePolicy.FAIL, context.getDivergencePolicy());
            assertThrows(NonDeterministicReplayException.class, () -> calls.durableExecute(x));
        }
    }
}
