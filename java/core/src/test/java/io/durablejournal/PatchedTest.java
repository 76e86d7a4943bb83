package io.durablejournal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.durablejournal.TestCalls.CountingPersister;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * {@code patched(changeId)} from a Java action: true and recorded in a new execution, true again
 * in its replay, false in a replay of an execution recorded before the change (the old path's
 * calls then replay as recorded). The rule is the native journal's (rust/journal/patch.rs).
 */
class PatchedTest {
    /** The action after the change: a new prompt behind the marker, the old one otherwise. */
    private static String action(RunnerContextImpl ctx) throws Exception {
        String prompt = ctx.patched("prompt-v2") ? "v2" : "v1";
        return ctx.durableExecute(TestCalls.returning("llm-" + prompt, "answer " + prompt));
    }

    @Test
    void aNewExecutionRecordsTheMarkerAndItsReplayTakesTheNewPathAgain() throws Exception {
        CountingPersister persister = new CountingPersister();
        ActionState recorded;
        try (DurableExecutionContext journal = new DurableExecutionContext(new ActionState(), persister)) {
            assertEquals("answer v2", action(new RunnerContextImpl(journal)));
            recorded = journal.getActionState();
        }
        List<CallResult> slots = recorded.getCallResults();
        assertEquals("patched:prompt-v2", slots.get(0).getFunctionId());
        assertTrue(slots.get(0).isSuccess());
        assertEquals("llm-v2", slots.get(1).getFunctionId());

        CountingPersister replayPersister = new CountingPersister();
        try (DurableExecutionContext replay = new DurableExecutionContext(recorded, replayPersister)) {
            RunnerContextImpl ctx = new RunnerContextImpl(replay);
            assertEquals("answer v2", action(ctx));
            assertEquals(1, ctx.getReplayedCallCount());
            assertEquals(0, ctx.getExecutedCallCount());
        }
        assertEquals(0, replayPersister.count(), "a replay records nothing");
    }

    @Test
    void aReplayOfAnExecutionRecordedBeforeTheChangeTakesTheOldPath() throws Exception {
        ActionState before = new ActionState();
        before.addCallResult(new CallResult("llm-v1", TestCalls.json("\"recorded v1\""), null));
        CountingPersister persister = new CountingPersister();
        // Also when the context answers recorded hits itself before opening its journal.
        for (DurableExecutionContext replay : new DurableExecutionContext[] {
                new DurableExecutionContext(before, persister), DurableExecutionContext.resuming(before, () ->
                        new DurableExecutionContext(before, persister))}) {
            try (DurableExecutionContext journal = replay) {
                RunnerContextImpl ctx = new RunnerContextImpl(journal);
                assertEquals("recorded v1", action(ctx));
                assertEquals(1, ctx.getReplayedCallCount());
                assertFalse(journal.getActionState().getCallResults().stream()
                        .anyMatch(slot -> slot.getFunctionId().startsWith("patched:")), "no marker written into an old execution");
            }
        }
        assertEquals(0, persister.count());
    }

    @Test
    void withoutAJournalEveryExecutionIsNewAndAnEmptyIdIsRefused() throws Exception {
        assertEquals("answer v2", action(new RunnerContextImpl(null)));
        try (DurableExecutionContext journal = new DurableExecutionContext(new ActionState(), new CountingPersister())) {
            JournalException e = assertThrows(JournalException.class, () -> journal.patched(""));
            assertTrue(e.getMessage().contains("non-empty change id"), e.getMessage());
        }
    }
}
