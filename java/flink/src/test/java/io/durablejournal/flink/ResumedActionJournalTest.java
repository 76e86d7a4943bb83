package io.durablejournal.flink;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.durablejournal.ActionState;
import io.durablejournal.DivergencePolicy;
import io.durablejournal.DurableCallable;
import io.durablejournal.DurableExecutionContext;
import io.durablejournal.store.ActionStateStore;
import io.durablejournal.store.ActionStateStores;
import io.durablejournal.store.EventIdentity;
import io.durablejournal.testing.ForwardingStore;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/**
 * The operators' re-run of an interrupted action ({@link DurableActionRunner}, shared by {@link
 * DurableActionFunction} and {@link DurableAsyncActionFunction}): the recorded calls are answered
 * from the entry the runner read, and the store's journal opens only at the first call that is not
 * one of them, so recovery does no native work for the calls it replays.
 */
class ResumedActionJournalTest {
    private static final String ACTION = "resumed-action";
    private static final String KEY = "user-1";
    private static final long SEQ = 7;

    /** Counts what ran, and how many durable calls had returned when the journal was opened. */
    private static final class Observed {
        final AtomicInteger sideEffects = new AtomicInteger();
        final AtomicInteger callsReturned = new AtomicInteger();
        final List<Integer> callsReturnedAtOpen = Collections.synchronizedList(new ArrayList<>());
    }

    /**
     * {@code inner} as a store of the user's, as the operators see it, that notes in {@code
     * observed} when a journal is opened.
     */
    private static ActionStateStore notingOpens(ActionStateStore inner, Observed observed) {
        return new ForwardingStore(inner) {
            @Override
            public DurableExecutionContext openContext(Object key, long seqNum, String actionName, EventIdentity event, ActionState initial) {
                observed.callsReturnedAtOpen.add(observed.callsReturned.get());
                return super.openContext(key, seqNum, actionName, event, initial);
            }
        };
    }

    /** Three durable calls; {@code failAfter} of them return before the action crashes. */
    private static DurableActionRunner<String, String> runner(Observed observed, int failAfter) {
        AgentAction<String, String> action = (input, ctx) -> {
            StringBuilder answer = new StringBuilder(input);
            for (int i = 0; i < 3; i++) {
                if (i == failAfter) {
                    throw new IllegalStateException("crash before call " + i);
                }
                int n = i;
                answer.append(' ').append(ctx.durableExecute(DurableCallable.of("tool-call:" + n, String.class, () -> {
                    observed.sideEffects.incrementAndGet();
                    return "r" + n;
                })));
                observed.callsReturned.incrementAndGet();
            }
            return answer.toString();
        };
        return new DurableActionRunner<>(ACTION, action, String.class, DivergencePolicy.WARN);
    }

    @Test
    void aReRunAnswersTheRecordedCallsBeforeOpeningTheStoresJournal() throws Exception {
        try (ActionStateStore memory = ActionStateStores.inMemory()) {
            Observed first = new Observed();
            ActionStateStore store = notingOpens(memory, first);
            DurableActionRunner.Tally crashed = new DurableActionRunner.Tally();
            try {
                runner(first, 2).run(store, KEY, SEQ, "q", crashed);
            } catch (IllegalStateException expected) {
                // The interrupted run: two calls recorded in the store.
            }
            assertEquals(List.of(0), first.callsReturnedAtOpen, "a first run opens the store's journal at once");
            assertEquals(2, first.sideEffects.get());

            Observed rerun = new Observed();
            DurableActionRunner.Tally tally = new DurableActionRunner.Tally();
            List<String> out = runner(rerun, -1).run(notingOpens(memory, rerun), KEY, SEQ, "q", tally);
            assertEquals(List.of("q r0 r1 r2"), out);
            assertEquals(List.of(2), rerun.callsReturnedAtOpen,
                    "the journal opened at the third call, after the two recorded ones were answered");
            assertEquals(1, rerun.sideEffects.get(), "only the third call ran");
            assertEquals(2, tally.callsReplayed);
            assertEquals(1, tally.callsExecuted);
            assertEquals(1, tally.actionsResumed);

            ActionState stored = memory.get(KEY, SEQ, ACTION, EventIdentity.rootOccurrence(KEY, SEQ));
            assertEquals(true, stored.isCompleted());
            assertEquals(List.of("\"q r0 r1 r2\""), stored.getOutputEventsJson());
        }
    }

    @Test
    void aReRunWhoseCallsAreAllRecordedNeverOpensTheStoresJournal() throws Exception {
        try (ActionStateStore memory = ActionStateStores.inMemory()) {
            Observed first = new Observed();
            // All three calls recorded, then the action crashed before completing.
            AgentAction<String, String> crashesAfterItsCalls = (input, ctx) -> {
                for (int i = 0; i < 3; i++) {
                    int n = i;
                    ctx.durableExecute(DurableCallable.of("tool-call:" + n, String.class, () -> "r" + n));
                }
                throw new IllegalStateException("crash after the calls");
            };
            try {
                new DurableActionRunner<>(ACTION, crashesAfterItsCalls, String.class, DivergencePolicy.WARN)
                        .run(notingOpens(memory, first), KEY, SEQ, "q", new DurableActionRunner.Tally());
            } catch (IllegalStateException expected) {
                // Interrupted after its third call.
            }
            Observed rerun = new Observed();
            List<String> out = runner(rerun, -1).run(notingOpens(memory, rerun), KEY, SEQ, "q", new DurableActionRunner.Tally());
            assertEquals(List.of("q r0 r1 r2"), out);
            assertEquals(List.of(), rerun.callsReturnedAtOpen, "every call was a recorded hit: no journal was opened");
            assertEquals(0, rerun.sideEffects.get());
            assertEquals(List.of("\"q r0 r1 r2\""),
                    memory.get(KEY, SEQ, ACTION, EventIdentity.rootOccurrence(KEY, SEQ)).getOutputEventsJson(),
                    "the completed action is stored all the same");
        }
    }
}
