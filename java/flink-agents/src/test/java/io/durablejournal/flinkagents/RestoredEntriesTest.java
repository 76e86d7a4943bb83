package io.durablejournal.flinkagents;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import io.durablejournal.flink.ActionStateStoreFactory;
import io.durablejournal.store.ActionStateStore;
import io.durablejournal.store.ActionStateStores;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import org.apache.flink.agents.api.Event;
import org.apache.flink.agents.api.InputEvent;
import org.apache.flink.agents.api.context.RunnerContext;
import org.apache.flink.agents.plan.AgentPlan;
import org.apache.flink.agents.plan.JavaFunction;
import org.apache.flink.agents.plan.actions.Action;
import org.apache.flink.agents.runtime.context.RunnerContextImpl;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * After a restore, the first {@code get} of each action that was in flight is served from the
 * answers the store read in one crossing ({@link RestoredEntries}), and a call that may change a
 * key's entries in between sends that key's next {@code get} to the native store, which then
 * answers what it holds now (each test fails when its drop is left out of {@link
 * RestoredEntries}).
 */
public class RestoredEntriesTest {
    private static final long SEQ = 1;
    /** What the calls of the current attempt return: a replayed call returns the first attempt's. */
    private static String attemptResult;
    /** The results the action's calls returned, in order. */
    private static final List<String> returned = new ArrayList<>();

    @TempDir
    Path tmp;

    private final AgentPlan plan = Fixtures.plan();
    private final Action journaled = action();

    public static void twoCalls(Event event, RunnerContext ctx) throws Exception {
        for (String id : new String[] {"chat", "lookup"}) {
            returned.add(ctx.durableExecute(AgentCall.of(id, () -> attemptResult + " " + id)));
        }
    }

    private static Action action() {
        try {
            JavaFunction function = new JavaFunction(RestoredEntriesTest.class, "twoCalls",
                    new Class<?>[] {Event.class, RunnerContext.class});
            return new Action("restored", new JournaledJavaFunction(function), Collections.singletonList(InputEvent.EVENT_TYPE));
        } catch (Exception e) {
            throw new AssertionError(e);
        }
    }

    /** File stores in one directory, each counting the lookups that reach the native store. */
    private static final class Stores implements ActionStateStoreFactory {
        private static final long serialVersionUID = 1L;
        private final transient Path dir;
        transient RecordPathStoreCallsTest.Counted opened;

        Stores(Path dir) {
            this.dir = dir;
        }

        @Override
        public ActionStateStore open(int subtaskIndex, int parallelism) {
            opened = new RecordPathStoreCallsTest.Counted(ActionStateStores.openFileStore(dir));
            return opened;
        }
    }

    @BeforeEach
    void firstAttempt() {
        attemptResult = "first";
        returned.clear();
    }

    /** Runs the action for {@code key} as the operator does; returns what its calls returned. */
    private List<String> run(JournalActionStateStore store, String key) throws Exception {
        returned.clear();
        RunnerContextImpl context = Fixtures.operatorContext(store, key, SEQ, journaled, Fixtures.input(1), plan);
        journaled.getExec().call(Fixtures.input(1), context);
        if (context.getDurableExecutionContext() instanceof NativeJournalContext) {
            ((NativeJournalContext) context.getDurableExecutionContext()).release(); // the attempt ends
        }
        return new ArrayList<>(returned);
    }

    /** Records the two calls of the action for each key, then ends the attempt: the store's marker. */
    private List<Object> recordInFlight(Stores stores, String... keys) throws Exception {
        try (JournalActionStateStore store = Fixtures.store(stores, 0, 1, 0)) {
            store.rebuildState(Collections.emptyList());
            for (String key : keys) {
                run(store, key);
            }
            return Collections.singletonList(store.getRecoveryMarker());
        }
    }

    private JournalActionStateStore restore(Stores stores, List<Object> markers) {
        JournalActionStateStore store = Fixtures.store(stores, 0, 1, 1);
        store.rebuildState(markers);
        attemptResult = "second";
        return store;
    }

    @Test
    void everyActionInFlightIsServedItsRecordedCallsWithoutAskingTheStore() throws Exception {
        Stores stores = new Stores(Files.createDirectories(tmp.resolve("store")));
        List<Object> markers = recordInFlight(stores, "user-1", "user-2", "user-3");
        try (JournalActionStateStore store = restore(stores, markers)) {
            for (String key : new String[] {"user-1", "user-2", "user-3"}) {
                assertEquals(List.of("first chat", "first lookup"), run(store, key), key + " replays the recorded results");
            }
            assertEquals(0, stores.opened.lookups, "no get reached the native store");

            // Served once: the next get of the same entry asks the store.
            run(store, "user-1");
            assertEquals(1, stores.opened.lookups);
        }
    }

    @Test
    void aPutForTheKeySendsItsNextGetToTheStore() throws Exception {
        Stores stores = new Stores(Files.createDirectories(tmp.resolve("store")));
        List<Object> markers = recordInFlight(stores, "user-1", "user-2");
        try (JournalActionStateStore store = restore(stores, markers)) {
            InputEvent event = Fixtures.input(1);
            store.put("user-1", SEQ, journaled, event, new org.apache.flink.agents.runtime.actionstate.ActionState(event));
            assertEquals(List.of("second chat", "second lookup"), run(store, "user-1"),
                    "the entry put has no calls: they run again");
            int before = stores.opened.lookups;
            assertEquals(List.of("first chat", "first lookup"), run(store, "user-2"), "another key's answer is kept");
            assertEquals(before, stores.opened.lookups);
        }
    }

    @Test
    void aPruneSendsEveryNextGetToTheStore() throws Exception {
        Stores stores = new Stores(Files.createDirectories(tmp.resolve("store")));
        List<Object> markers = recordInFlight(stores, "user-1", "user-2");
        try (JournalActionStateStore store = restore(stores, markers)) {
            store.pruneState("user-1", SEQ);
            assertNull(store.get("user-1", SEQ, journaled, Fixtures.input(1)), "pruned");
            assertEquals(1, stores.opened.lookups);
            assertEquals(List.of("first chat", "first lookup"), run(store, "user-2"));
            assertEquals(2, stores.opened.lookups, "a prune may expire any entry: every answer was dropped");
        }
    }

    @Test
    void theFirstCompletedCheckpointLetsTheAnswersNoActionAskedForGo() throws Exception {
        Stores stores = new Stores(Files.createDirectories(tmp.resolve("store")));
        List<Object> markers = recordInFlight(stores, "user-1");
        try (JournalActionStateStore store = restore(stores, markers)) {
            store.checkpointCompleted();
            assertEquals(List.of("first chat", "first lookup"), run(store, "user-1"), "the store still holds the entry");
            assertEquals(1, stores.opened.lookups, "asked the store");
        }
    }

    @Test
    void anotherActionsGetOfTheKeySendsItsNextGetToTheStore() throws Exception {
        Stores stores = new Stores(Files.createDirectories(tmp.resolve("store")));
        List<Object> markers = recordInFlight(stores, "user-1", "user-2");
        try (JournalActionStateStore store = restore(stores, markers)) {
            assertNull(store.get("user-1", SEQ, Fixtures.draft(plan), Fixtures.input(1)), "a miss of another action");
            int before = stores.opened.lookups;
            assertEquals(List.of("first chat", "first lookup"), run(store, "user-1"), "the store still holds the entry");
            assertEquals(before + 1, stores.opened.lookups, "asked the store, not the answers read before the miss");

            // A miss at an earlier input hides the later ones (spec section 4): the store's answer, not the one read before.
            assertNull(store.get("user-2", 0, journaled, Fixtures.input(1)));
            assertEquals(List.of("second chat", "second lookup"), run(store, "user-2"), "the hidden entry's calls run again");
        }
    }
}
