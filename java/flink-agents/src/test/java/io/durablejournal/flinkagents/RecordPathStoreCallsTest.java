package io.durablejournal.flinkagents;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNotSame;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.durablejournal.DurableExecutionContext;
import io.durablejournal.flink.ActionStateStoreFactory;
import io.durablejournal.store.ActionStateStore;
import io.durablejournal.store.ActionStateStores;
import io.durablejournal.store.EventIdentity;
import io.durablejournal.store.internal.InFlightEntries;
import io.durablejournal.store.internal.JsonEntryStore;
import io.durablejournal.store.internal.ResumingEntry;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.function.BiFunction;
import java.util.function.Supplier;
import org.apache.flink.agents.api.Event;
import org.apache.flink.agents.api.InputEvent;
import org.apache.flink.agents.api.OutputEvent;
import org.apache.flink.agents.api.context.RunnerContext;
import org.apache.flink.agents.plan.JavaFunction;
import org.apache.flink.agents.plan.actions.Action;
import org.apache.flink.agents.runtime.actionstate.ActionState;
import org.apache.flink.agents.runtime.actionstate.ActionStateSerde;
import org.apache.flink.agents.runtime.context.RunnerContextImpl;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The store calls Flink Agents 0.3.1's operator makes for one fresh action on the native journal
 * ({@code processActionTaskForKey}: a lookup by key text, a second one by key in {@code
 * maybeInitActionState}, the initial put, the get it builds its journal over, then {@code
 * maybePersistTaskResult}'s get and completed put): which of them reach the native store, and
 * that what the store holds afterwards is byte for byte what the whole-state puts made before.
 */
public class RecordPathStoreCallsTest {
    private static final String KEY = "user-7";
    private static final long SEQ = 3;

    @TempDir
    Path tmp;

    /** A native store counting the calls that reach it (one test's, never serialized). */
    static final class Counted extends CountingStores.Counting implements JsonEntryStore {
        int lookups;
        int wholePuts;
        int journalsOpened;

        Counted(io.durablejournal.store.NativeActionStateStore store) {
            super(store);
        }

        @Override
        public void putJson(Object key, long seqNum, String actionName, EventIdentity event, byte[] stateJson) {
            wholePuts++;
            nativeStore.putJson(key, seqNum, actionName, event, stateJson);
        }

        @Override
        public byte[] getJson(Object key, long seqNum, String actionName, EventIdentity event) {
            lookups++;
            return nativeStore.getJson(key, seqNum, actionName, event);
        }

        @Override
        public ResumingEntry getResuming(Object key, long seqNum, String actionName, EventIdentity event) {
            lookups++;
            return nativeStore.getResuming(key, seqNum, actionName, event);
        }

        @Override
        public InFlightEntries inFlightEntries(long maxBytes) {
            return nativeStore.inFlightEntries(maxBytes);
        }

        @Override
        public DurableExecutionContext openContext(Object key, long seqNum, String actionName, EventIdentity event,
                io.durablejournal.ActionState initial) {
            journalsOpened++;
            return nativeStore.openContext(key, seqNum, actionName, event, initial);
        }
    }

    /** Opens one {@link Counted} store over what {@code opener} makes and keeps it for the test. */
    private static final class CountedStores implements ActionStateStoreFactory {
        private static final long serialVersionUID = 1L;
        private final transient Supplier<io.durablejournal.store.NativeActionStateStore> opener;
        transient Counted opened;

        CountedStores(Supplier<io.durablejournal.store.NativeActionStateStore> opener) {
            this.opener = opener;
        }

        @Override
        public ActionStateStore open(int subtaskIndex, int parallelism) {
            opened = new Counted(opener.get());
            return opened;
        }
    }

    /** {@link CallsAgent#calls} on the native journal: as many calls as its input says, then one output event. */
    private static Action journaledAction() throws Exception {
        JavaFunction function = new JavaFunction(CallsAgent.class, "calls", new Class<?>[] {Event.class, RunnerContext.class});
        return new Action("answer", new JournaledJavaFunction(function), Collections.singletonList(InputEvent.EVENT_TYPE));
    }

    /**
     * The operator's calls for a fresh action of two durable calls; {@code complete} turns the
     * state {@code maybePersistTaskResult} reads, and the events the action sent, into the state
     * it puts (the operator adds those events; an action that sends none adds nothing).
     */
    private static void runFreshAction(JournalActionStateStore store, Event event,
            BiFunction<ActionState, List<Event>, ActionState> complete) throws Exception {
        Action action = journaledAction();
        assertNull(store.get(KEY, SEQ, action, event));
        assertNull(store.get(KEY, SEQ, action, event), "maybeInitActionState's second lookup");
        store.put(KEY, SEQ, action, event, new ActionState(event));
        ActionState state = store.get(KEY, SEQ, action, event);
        // A plan: main's RunnerContextImpl reads its configuration (0.3.1 takes none).
        RunnerContextImpl context = new RunnerContextImpl(null, () -> { }, Fixtures.plan(), null, "job");
        context.setDurableExecutionContext(new RunnerContextImpl.DurableExecutionContext(KEY, SEQ, action, event, state,
                (k, s, a, e, st) -> { throw new AssertionError("Flink Agents' persister must not be reached"); }));
        action.getExec().call(event, context);
        ActionState done = complete.apply(store.get(KEY, SEQ, action, event), context.drainEvents(null));
        done.markCompleted();
        store.put(KEY, SEQ, action, event, done);
    }

    /** The entry of the action {@link #runFreshAction} ran, as Flink Agents' own journal reads it. */
    private static ActionState storedEntry(JournalActionStateStore store, Event event) throws Exception {
        return store.get(KEY, SEQ, journaledAction(), event);
    }

    @Test
    void aFreshActionReadsTheNativeStoreOnceAndCompletesThroughItsJournal() throws Exception {
        CountedStores stores = new CountedStores(ActionStateStores::inMemory);
        try (JournalActionStateStore store = Fixtures.store(stores, 0, 1, 0)) {
            InputEvent event = new InputEvent(2);
            runFreshAction(store, event, (served, sent) -> served);
            Counted counted = stores.opened;
            assertEquals(1, counted.lookups, "only the first lookup misses in the native store");
            assertEquals(1, counted.wholePuts, "the initial state; the completion is the journal's own record");
            assertEquals(1, counted.journalsOpened);

            ActionState stored = storedEntry(store, event);
            assertTrue(stored.isCompleted());
            assertEquals(0, stored.getCallResultCount(), "a completed entry keeps no calls");
            assertEquals(2, ((InputEvent) stored.getTaskEvent()).getInput());
            assertEquals(2, counted.lookups, "a completed entry is read from the native store");
        }
    }

    @Test
    void theStateServedAfterTheInitialPutIsTheStoredOneInANewObject() throws Exception {
        CountedStores stores = new CountedStores(ActionStateStores::inMemory);
        try (JournalActionStateStore store = Fixtures.store(stores, 0, 1, 0)) {
            Action action = journaledAction();
            InputEvent event = new InputEvent(2);
            ActionState initial = new ActionState(event);
            store.put(KEY, SEQ, action, event, initial);
            ActionState served = store.get(KEY, SEQ, action, event);
            assertNotSame(initial, served);
            assertEquals(0, stores.opened.lookups);
            assertArrayEquals(stores.opened.nativeStore.getJson(KEY, SEQ, "answer", EventIdentity.rootOccurrence(KEY, SEQ)),
                    ActionStateSerde.serialize(served));

            // Anything the store does in between (here a prune) makes the next get ask the native store.
            store.pruneState(KEY, SEQ);
            assertNull(store.get(KEY, SEQ, action, event));
            assertEquals(1, stores.opened.lookups);
        }
    }

    /**
     * The same action completed through its journal and through the whole state (a completed
     * state the store did not hand out, as any other caller would put): the file stores append
     * the same bytes and return the same entry.
     */
    @Test
    void completingThroughTheJournalWritesWhatTheWholeStateWrites() throws Exception {
        byte[][] entries = new byte[2][];
        long[] appended = new long[2];
        int[] wholePuts = new int[2];
        InputEvent event = new InputEvent(2);
        for (int run = 0; run < 2; run++) {
            Path dir = java.nio.file.Files.createDirectories(tmp.resolve("run-" + run));
            CountedStores stores = new CountedStores(() -> ActionStateStores.openFileStore(dir));
            boolean wholeState = run == 1;
            try (JournalActionStateStore store = Fixtures.store(stores, 0, 1, 0)) {
                runFreshAction(store, event, (served, sent) -> wholeState ? copyOf(served) : served);
                entries[run] = stores.opened.nativeStore.getJson(KEY, SEQ, "answer", EventIdentity.rootOccurrence(KEY, SEQ));
                appended[run] = stores.opened.nativeStore.bytesAppended();
                wholePuts[run] = stores.opened.wholePuts;
            }
        }
        assertEquals(1, wholePuts[0]);
        assertEquals(2, wholePuts[1]);
        assertNotNull(entries[0]);
        assertArrayEquals(entries[1], entries[0]);
        assertEquals(appended[1], appended[0], "the same records");
    }

    @Test
    void anActionThatEmittedEventsIsCompletedWithThemThroughTheWholeState() throws Exception {
        CountedStores stores = new CountedStores(ActionStateStores::inMemory);
        try (JournalActionStateStore store = Fixtures.store(stores, 0, 1, 0)) {
            InputEvent event = new InputEvent(2);
            runFreshAction(store, event, (served, sent) -> {
                sent.forEach(served::addEvent);
                return served;
            });
            assertEquals(2, stores.opened.wholePuts, "the initial state and the completed one with its output");
            ActionState stored = storedEntry(store, event);
            assertTrue(stored.isCompleted());
            assertEquals(1, stored.getOutputEvents().size());
            assertEquals(2, ((OutputEvent) stored.getOutputEvents().get(0)).getOutput());
        }
    }

    private static ActionState copyOf(ActionState state) {
        return new ActionState(state.getTaskEvent(), new ArrayList<>(state.getSensoryMemoryUpdates()),
                new ArrayList<>(state.getShortTermMemoryUpdates()), new ArrayList<>(state.getOutputEvents()),
                new ArrayList<>(state.getCallResults()), state.isCompleted());
    }
}
