package io.durablejournal.flinkagents;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.durablejournal.flink.ActionStateStoreFactory;
import java.util.Collections;
import org.apache.flink.agents.api.InputEvent;
import org.apache.flink.agents.api.OutputEvent;
import org.apache.flink.agents.plan.AgentPlan;
import org.apache.flink.agents.plan.JavaFunction;
import org.apache.flink.agents.plan.actions.Action;
import org.apache.flink.agents.runtime.actionstate.ActionState;
import org.apache.flink.agents.runtime.context.RunnerContextImpl;
import org.junit.jupiter.api.Test;

/**
 * An interrupted action on the native journal resumes in a new attempt, where Flink Agents makes
 * its input event again (a new event id): the operator is served a stand-in for the entry
 * ({@link DeferredStates}), and whatever path the action takes to completion, the completed entry
 * keeps the task event it was recorded with.
 */
public class DeferredStatesTest {
    private static final String KEY = "user-7";
    private static final long SEQ = 2;

    /** The calls the action makes in this attempt, by id; each returns "hello". */
    private static java.util.List<String> callIds = java.util.List.of();
    /** How many of them ran (a replayed call does not run). */
    private static int ran;

    private final AgentPlan plan = Fixtures.plan();
    /** A Java action on the native journal, as the adapter plans it. */
    private final Action journaled = action(true);
    /** Flink Agents' own journal for the same action name: it is served the entry whole. */
    private final Action plain = action(false);

    public static void action(org.apache.flink.agents.api.Event event, org.apache.flink.agents.api.context.RunnerContext ctx)
            throws Exception {
        for (String id : callIds) {
            ctx.durableExecute(AgentCall.of(id, () -> {
                ran++;
                return "hello";
            }));
        }
    }

    private static Action action(boolean onTheNativeJournal) {
        try {
            JavaFunction function = new JavaFunction(DeferredStatesTest.class, "action",
                    new Class<?>[] {org.apache.flink.agents.api.Event.class, org.apache.flink.agents.api.context.RunnerContext.class});
            return new Action("deferred", onTheNativeJournal ? new JournaledJavaFunction(function) : function,
                    Collections.singletonList(InputEvent.EVENT_TYPE));
        } catch (Exception e) {
            throw new AssertionError(e);
        }
    }

    /**
     * The operator's steps before an action runs, then the action making {@code calls}; its
     * journal, installed by the adapter at the first call.
     */
    private NativeJournalContext runAction(JournalActionStateStore store, InputEvent event, String... calls) throws Exception {
        RunnerContextImpl context = Fixtures.operatorContext(store, KEY, SEQ, journaled, event, plan);
        ActionState served = context.getDurableExecutionContext().getActionState();
        callIds = java.util.List.of(calls);
        ran = 0;
        journaled.getExec().call(event, context);
        NativeJournalContext journal = (NativeJournalContext) context.getDurableExecutionContext();
        assertSame(served, journal.servedState());
        return journal;
    }

    /** A first attempt that records one call and fails over; the recorded input event. */
    private InputEvent recordOneCallThenFailOver(JournalActionStateStore store) throws Exception {
        InputEvent recorded = Fixtures.input(7);
        runAction(store, recorded, "chat").release(); // the attempt ends
        assertEquals(1, ran);
        return recorded;
    }

    /** The operator's maybePersistTaskResult: get, add an output, mark completed, put. */
    private ActionState completeWithAnOutput(JournalActionStateStore store, InputEvent event) {
        ActionState toComplete = store.get(KEY, SEQ, journaled, event);
        assertFalse(toComplete.isCompleted());
        toComplete.addEvent(new OutputEvent("answer"));
        toComplete.markCompleted();
        store.put(KEY, SEQ, journaled, event, toComplete);
        return toComplete;
    }

    private ActionState storedEntry(JournalActionStateStore store) {
        return store.get(KEY, SEQ, plain, Fixtures.input(7));
    }

    @Test
    void anActionWhoseCallsAllReplayCompletesWithTheRecordedTaskEvent() throws Exception {
        try (JournalActionStateStore store = Fixtures.store(ActionStateStoreFactory.inMemory(), 0, 1, 0)) {
            InputEvent recorded = recordOneCallThenFailOver(store);
            InputEvent again = Fixtures.input(7);
            assertNotEquals(recorded.getId(), again.getId());

            NativeJournalContext resumed = runAction(store, again, "chat");
            assertFalse(resumed.servedState().isCompleted(), "the entry is interrupted");
            assertEquals(0, ran, "the recorded call replays");
            assertFalse(resumed.isOpen(), "every call replayed from the hits");

            // The journal never opened, so the operator's get before completing reads the entry again.
            ActionState completed = completeWithAnOutput(store, again);
            assertEquals(recorded.getId(), completed.getTaskEvent().getId(), "the state to complete is the recorded one");
            ActionState stored = storedEntry(store);
            assertTrue(stored.isCompleted());
            assertEquals(recorded.getId(), stored.getTaskEvent().getId());
            assertEquals(1, stored.getOutputEvents().size());
        }
    }

    @Test
    void anActionWhoseJournalOpensCompletesWithTheRecordedTaskEvent() throws Exception {
        try (JournalActionStateStore store = Fixtures.store(ActionStateStoreFactory.inMemory(), 0, 1, 0)) {
            InputEvent recorded = recordOneCallThenFailOver(store);
            InputEvent again = Fixtures.input(7);
            NativeJournalContext resumed = runAction(store, again, "chat", "lookup");
            assertEquals(1, ran, "only the call after the recorded one runs");
            assertTrue(resumed.isOpen());

            completeWithAnOutput(store, again);
            ActionState stored = storedEntry(store);
            assertTrue(stored.isCompleted());
            assertEquals(recorded.getId(), stored.getTaskEvent().getId());
            assertEquals(1, stored.getOutputEvents().size());
            assertEquals(0, stored.getCallResultCount());
        }
    }

    @Test
    void anActionCompletedWithNothingAddedKeepsItsRecordedEntry() throws Exception {
        try (JournalActionStateStore store = Fixtures.store(ActionStateStoreFactory.inMemory(), 0, 1, 0)) {
            InputEvent recorded = recordOneCallThenFailOver(store);
            InputEvent again = Fixtures.input(7);
            runAction(store, again, "other");
            assertEquals(1, ran, "another call cuts the journal and runs");

            ActionState toComplete = store.get(KEY, SEQ, journaled, again);
            toComplete.markCompleted();
            store.put(KEY, SEQ, journaled, again, toComplete);
            ActionState stored = storedEntry(store);
            assertTrue(stored.isCompleted());
            assertEquals(recorded.getId(), stored.getTaskEvent().getId());
        }
    }

    @Test
    void aPutOfTheStandInItselfKeepsTheRecordedTaskEvent() throws Exception {
        try (JournalActionStateStore store = Fixtures.store(ActionStateStoreFactory.inMemory(), 0, 1, 0)) {
            InputEvent recorded = recordOneCallThenFailOver(store);
            InputEvent again = Fixtures.input(7);
            ActionState standIn = runAction(store, again, "chat").servedState();
            standIn.addEvent(new OutputEvent("answer"));
            standIn.markCompleted();
            store.put(KEY, SEQ, journaled, again, standIn);
            ActionState stored = storedEntry(store);
            assertTrue(stored.isCompleted());
            assertEquals(recorded.getId(), stored.getTaskEvent().getId());
            assertEquals(1, stored.getOutputEvents().size());
        }
    }

    @Test
    void aCompletedEntryIsServedDecoded() throws Exception {
        try (JournalActionStateStore store = Fixtures.store(ActionStateStoreFactory.inMemory(), 0, 1, 0)) {
            InputEvent recorded = recordOneCallThenFailOver(store);
            InputEvent again = Fixtures.input(7);
            runAction(store, again, "chat");
            completeWithAnOutput(store, again);

            ActionState reemitted = store.get(KEY, SEQ, journaled, Fixtures.input(7));
            assertTrue(reemitted.isCompleted());
            assertEquals(recorded.getId(), reemitted.getTaskEvent().getId());
            assertEquals(1, reemitted.getOutputEvents().size(), "the operator re-emits the recorded outputs");
        }
    }
}
