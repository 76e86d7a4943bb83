package io.durablejournal.flinkagents;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.durablejournal.flink.ActionStateStoreFactory;
import java.nio.charset.StandardCharsets;
import org.apache.flink.agents.api.InputEvent;
import org.apache.flink.agents.plan.AgentPlan;
import org.apache.flink.agents.plan.actions.Action;
import org.apache.flink.agents.runtime.actionstate.ActionState;
import org.apache.flink.agents.runtime.actionstate.CallResult;
import org.apache.flink.agents.runtime.context.RunnerContextImpl;
import org.junit.jupiter.api.Test;

/**
 * {@link NativeJournalContext} driven the way Flink Agents 0.3.1's operator and its runner context
 * drive a journal (the calls of {@code processActionTaskForKey} and the bridge methods of {@code
 * RunnerContextImpl} that Python actions reach), over the adapter's store.
 */
class NativeJournalContextTest {
    private static final byte[] CHAT = "\"hello\"".getBytes(StandardCharsets.UTF_8);
    private static final byte[] FAILURE = "{\"exceptionClass\":\"java.io.IOException\",\"message\":\"quota\"}"
            .getBytes(StandardCharsets.UTF_8);

    private final AgentPlan plan = Fixtures.plan();
    private final Action draft = Fixtures.draft(plan);

    /**
     * What the operator does before it runs an action (get by key text; on a miss, put a fresh
     * state and get it again; then its own journal over that state), and the adapter's install.
     */
    private RunnerContextImpl runAction(JournalActionStateStore store, String key, long seqNum, InputEvent event) {
        RunnerContextImpl context = Fixtures.operatorContext(store, key, seqNum, draft, event, plan);
        NativeJournalContext journal = ServedStates.installJournal(context);
        assertSame(journal, context.getDurableExecutionContext());
        return context;
    }

    @Test
    void theBridgeCallsAreDecidedByTheNativeJournalAndARecordedNullReplays() {
        try (JournalActionStateStore store = Fixtures.store(ActionStateStoreFactory.inMemory(), 0, 1, 0)) {
            RunnerContextImpl first = runAction(store, "user-1", 1, Fixtures.input(1));
            assertNull(first.matchNextOrClearSubsequentCallResult("chat", ""));
            first.recordCallCompletion("chat", "", CHAT, null);
            assertNull(first.matchNextOrClearSubsequentCallResult("lookup", ""));
            first.recordCallCompletion("lookup", "", null, null); // the call returned null
            assertNull(first.matchNextOrClearSubsequentCallResult("send", ""));
            first.recordCallCompletion("send", "", null, FAILURE);
            assertEquals(3, first.getDurableExecutionContext().getCurrentCallIndex());
            assertEquals(3, first.getDurableExecutionContext().getActionState().getCallResultCount());

            // A failover: the replayed record (a new event id), the same sequence number.
            RunnerContextImpl replay = runAction(store, "user-1", 1, Fixtures.input(1));
            Object[] chat = replay.matchNextOrClearSubsequentCallResult("chat", "");
            assertEquals(Boolean.TRUE, chat[0]);
            assertArrayEquals(CHAT, (byte[]) chat[1]);
            Object[] lookup = replay.matchNextOrClearSubsequentCallResult("lookup", "");
            assertEquals(Boolean.TRUE, lookup[0], "a recorded null is a hit");
            assertNull(lookup[1]);
            assertNull(lookup[2]);
            Object[] send = replay.matchNextOrClearSubsequentCallResult("send", "");
            assertArrayEquals(FAILURE, (byte[]) send[2]);
        }
    }

    @Test
    void aPendingSlotIsFinalizedAndADifferentCallCutsTheJournal() {
        try (JournalActionStateStore store = Fixtures.store(ActionStateStoreFactory.inMemory(), 0, 1, 0)) {
            RunnerContextImpl first = runAction(store, "user-2", 4, Fixtures.input(2));
            first.recordCallCompletion("a", "", CHAT, null);
            first.appendPendingCall("refund", "");
            // crash while the refund runs

            RunnerContextImpl replay = runAction(store, "user-2", 4, Fixtures.input(2));
            assertEquals(Boolean.TRUE, replay.matchNextOrClearSubsequentCallResult("a", "")[0]);
            Object[] pending = replay.getCurrentCallResultFields();
            assertEquals("refund", pending[0]);
            assertEquals("", pending[1]);
            assertEquals("PENDING", pending[2]);
            replay.finalizeCurrentCall("refund", "", CHAT, null);
            assertNull(replay.getCurrentCallResultFields());

            RunnerContextImpl diverging = runAction(store, "user-2", 4, Fixtures.input(2));
            assertNull(diverging.matchNextOrClearSubsequentCallResult("b", ""), "another call at index 0");
            diverging.clearCallResultsFromCurrentIndexAndPersist();
            ((NativeJournalContext) diverging.getDurableExecutionContext()).release(); // the attempt ends
            assertEquals(0, store.get("user-2", 4, draft, Fixtures.input(2)).getCallResultCount());
        }
    }

    @Test
    void aPythonCallsArgsDigestIsPartOfItsIdentityAndComesBackAsItsOwnField() {
        try (JournalActionStateStore store = Fixtures.store(ActionStateStoreFactory.inMemory(), 0, 1, 0)) {
            RunnerContextImpl first = runAction(store, "user-3", 2, Fixtures.input(3));
            first.appendPendingCall("tools.search", "0123456789abcdef");
            ((NativeJournalContext) first.getDurableExecutionContext()).release(); // the attempt ends
            CallResult stored = store.get("user-3", 2, draft, Fixtures.input(3)).getCallResults().get(0);
            assertEquals("tools.search::0123456789abcdef", stored.getFunctionId());

            RunnerContextImpl replay = runAction(store, "user-3", 2, Fixtures.input(3));
            Object[] fields = replay.getCurrentCallResultFields();
            assertEquals("tools.search", fields[0]);
            assertEquals("0123456789abcdef", fields[1]);
            assertNull(replay.matchNextOrClearSubsequentCallResult("tools.search", "fedcba9876543210"),
                    "other arguments are another call");
        }
    }

    @Test
    void theOperatorCompletesTheStateWithoutReadingTheJournaledCallsBackAndTheJournalIsReleased() {
        try (JournalActionStateStore store = Fixtures.store(ActionStateStoreFactory.inMemory(), 0, 1, 0)) {
            InputEvent event = Fixtures.input(6);
            RunnerContextImpl context = runAction(store, "user-6", 3, event);
            context.recordCallCompletion("a", "", CHAT, null);
            context.recordCallCompletion("b", "", CHAT, null);
            NativeJournalContext journal = (NativeJournalContext) context.getDurableExecutionContext();

            // maybePersistTaskResult: get, add outputs, mark completed, put.
            ActionState toComplete = store.get("user-6", 3, draft, event);
            assertEquals(0, toComplete.getCallResultCount(), "the calls are the journal's");
            assertFalse(toComplete.isCompleted());
            org.apache.flink.agents.api.OutputEvent output = new org.apache.flink.agents.api.OutputEvent("answer");
            toComplete.addEvent(output);
            toComplete.markCompleted();
            store.put("user-6", 3, draft, event, toComplete);

            assertFalse(journal.isOpen(), "the completed action's journal is released");
            ActionState stored = store.get("user-6", 3, draft, Fixtures.input(6));
            assertTrue(stored.isCompleted());
            assertEquals(1, stored.getOutputEvents().size());
            assertEquals(0, stored.getCallResultCount());
        }
    }

    @Test
    void anActionThatMakesNoDurableCallOpensNoJournal() {
        try (JournalActionStateStore store = Fixtures.store(ActionStateStoreFactory.inMemory(), 0, 1, 0)) {
            RunnerContextImpl context = runAction(store, "user-4", 1, Fixtures.input(4));
            NativeJournalContext journal = (NativeJournalContext) context.getDurableExecutionContext();
            assertEquals(0, journal.getCurrentCallIndex());
            assertFalse(journal.isOpen());
        }
    }

    @Test
    void aJournalOverAStateTheStoreDidNotServeLastIsRefused() {
        try (JournalActionStateStore store = Fixtures.store(ActionStateStoreFactory.inMemory(), 0, 1, 0)) {
            InputEvent event = Fixtures.input(5);
            store.put("user-5", 1, draft, event, new ActionState(event));
            store.get("user-5", 1, draft, event);
            RunnerContextImpl context = new RunnerContextImpl(null, () -> { }, plan, null, "job");
            context.setDurableExecutionContext(new RunnerContextImpl.DurableExecutionContext("user-5", 1, draft, event,
                    new ActionState(event), (k, s, a, e, st) -> { }));
            IllegalStateException refused = assertThrows(IllegalStateException.class,
                    () -> ServedStates.installJournal(context));
            assertTrue(refused.getMessage().contains("cannot tell which entry"), refused.getMessage());
        }
    }
}
