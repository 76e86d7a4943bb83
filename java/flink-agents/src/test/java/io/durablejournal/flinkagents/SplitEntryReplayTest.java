package io.durablejournal.flinkagents;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.durablejournal.flink.ActionStateStoreFactory;
import io.durablejournal.store.ActionStateStore;
import io.durablejournal.store.EventIdentity;
import io.durablejournal.store.internal.JsonEntryStore;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import org.apache.flink.agents.api.Event;
import org.apache.flink.agents.api.InputEvent;
import org.apache.flink.agents.api.context.DurableCallable;
import org.apache.flink.agents.api.context.RunnerContext;
import org.apache.flink.agents.plan.JavaFunction;
import org.apache.flink.agents.plan.actions.Action;
import org.apache.flink.agents.runtime.actionstate.ActionState;
import org.apache.flink.agents.runtime.context.RunnerContextImpl;
import org.junit.jupiter.api.Test;

/**
 * A Java action on the native journal, re-run over its unfinished entry: the store serves Flink
 * Agents' operator the entry without its call results (split off in the same read), and the
 * action's journal replays the recorded calls from the slots: a result, a null, a typed failure,
 * none of them run again; the next call runs and is recorded after them. A store of the user's
 * own, which implements only the public {@link ActionStateStore}, serves the whole entry instead
 * and the same calls replay from the journal the store opens.
 */
public class SplitEntryReplayTest {
    /** What the action's calls did, in order (a recorded call that replays adds nothing). */
    private static final List<String> RAN = new ArrayList<>();
    /** What the action saw, in order. */
    private static final List<Object> SAW = new ArrayList<>();
    /** How many calls the action makes in this attempt. */
    private static int callsToMake;

    public static final class QuotaExceeded extends Exception {
        public QuotaExceeded(String message) {
            super(message);
        }
    }

    private static DurableCallable<String> call(String id, String result, boolean fails) {
        return AgentCall.of(id, () -> {
            RAN.add(id);
            if (fails) {
                throw new QuotaExceeded("quota of " + id);
            }
            return result;
        });
    }

    public static void action(Event event, RunnerContext ctx) throws Exception {
        List<DurableCallable<String>> calls = List.of(call("chat", "hello", false), call("lookup", null, false),
                call("tool", null, true), call("summarize", "done", false));
        for (DurableCallable<String> call : calls.subList(0, callsToMake)) {
            try {
                SAW.add(ctx.durableExecute(call));
            } catch (QuotaExceeded e) {
                SAW.add("caught " + e.getMessage());
            }
        }
    }

    private static Action journaledAction() throws Exception {
        JavaFunction function = new JavaFunction(SplitEntryReplayTest.class, "action", new Class<?>[] {Event.class, RunnerContext.class});
        return new Action("split", new JournaledJavaFunction(function), Collections.singletonList(InputEvent.EVENT_TYPE));
    }

    /** The operator's processActionTaskForKey up to the action (get; on a miss put and get), then the action. */
    private static ActionState runAction(JournalActionStateStore store, Action action, InputEvent event) throws Exception {
        // A plan: main's RunnerContextImpl reads its configuration (0.3.1 takes none).
        RunnerContextImpl context = Fixtures.operatorContext(store, "user-1", 1, action, event, Fixtures.plan());
        ActionState state = context.getDurableExecutionContext().getActionState();
        action.getExec().call(event, context);
        // The attempt ends here, as at a failover: the entry stays unfinished in the store.
        ((NativeJournalContext) context.getDurableExecutionContext()).release();
        return state;
    }

    /**
     * The action's first attempt makes three calls and fails over; the re-run makes four, and only
     * the fourth runs. What the operator was served for the re-run.
     */
    private static ActionState recordThreeCallsThenRerunWithFour(JournalActionStateStore store, Action action,
            InputEvent event) throws Exception {
        RAN.clear();
        SAW.clear();
        callsToMake = 3;
        runAction(store, action, event);
        assertEquals(List.of("chat", "lookup", "tool"), RAN);
        assertEquals(java.util.Arrays.asList("hello", null, "caught quota of tool"), SAW);

        RAN.clear();
        SAW.clear();
        callsToMake = 4;
        ActionState served = runAction(store, action, event);
        assertEquals(List.of("summarize"), RAN, "only the call after the recorded ones runs");
        assertEquals(java.util.Arrays.asList("hello", null, "caught quota of tool", "done"), SAW);
        return served;
    }

    @Test
    void theRecordedCallsReplayFromTheSplitSlotsAndTheNextCallRuns() throws Exception {
        try (JournalActionStateStore store = Fixtures.store(ActionStateStoreFactory.inMemory(), 0, 1, 0)) {
            InputEvent event = new InputEvent("question");
            ActionState served = recordThreeCallsThenRerunWithFour(store, journaledAction(), event);
            assertEquals(0, served.getCallResultCount(), "the operator is served the entry without its call results");

            // Flink Agents' own journal (a plain JavaFunction of the same name) is served every recorded call.
            Action plain = new Action("split", new JavaFunction(SplitEntryReplayTest.class, "action",
                    new Class<?>[] {Event.class, RunnerContext.class}), Collections.singletonList(InputEvent.EVENT_TYPE));
            ActionState whole = store.get("user-1", 1, plain, event);
            assertEquals(4, whole.getCallResultCount());
            assertEquals("summarize", whole.getCallResults().get(3).getFunctionId());
            assertTrue(whole.getCallResults().get(2).isFailure());
        }
    }

    @Test
    void aStoreOfTheUsersOwnServesTheWholeEntryAndTheSameCallsReplay() throws Exception {
        // CountingStores opens a ForwardingStore: a store of the user's, with the public interface only.
        CountingStores stores = new CountingStores();
        try (JournalActionStateStore store = Fixtures.store(stores, 0, 1, 0)) {
            ActionState served = recordThreeCallsThenRerunWithFour(store, journaledAction(), new InputEvent("question"));
            assertFalse(stores.opened instanceof JsonEntryStore, "the user's store has the public interface only");
            assertEquals(3, served.getCallResultCount(), "the user's store serves the whole entry");
            assertEquals(4, stores.opened.get("user-1", 1, "split", EventIdentity.rootOccurrence("user-1", 1))
                    .getCallResults().size());
        }
    }
}
