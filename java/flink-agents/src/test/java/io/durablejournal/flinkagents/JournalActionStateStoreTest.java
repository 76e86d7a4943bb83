package io.durablejournal.flinkagents;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.durablejournal.flink.ActionStateStoreFactory;
import io.durablejournal.flink.SubtaskScope;
import io.durablejournal.store.ActionStateStores;
import io.durablejournal.flinkagents.demo.SupportRequest;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.ObjectInputStream;
import java.io.ObjectOutputStream;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Base64;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import org.apache.flink.agents.api.Event;
import org.apache.flink.agents.api.InputEvent;
import org.apache.flink.agents.plan.AgentPlan;
import org.apache.flink.agents.plan.actions.Action;
import org.apache.flink.agents.runtime.actionstate.ActionState;
import org.apache.flink.agents.runtime.actionstate.ActionStateSerde;
import org.apache.flink.runtime.execution.SuppressRestartsException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@link JournalActionStateStore} against the calls Flink Agents 0.3.1's operator makes, and
 * against the defects of its Kafka store (a miss that purges other keys, keys cut at {@code _},
 * entries keyed by the event's random id).
 */
class JournalActionStateStoreTest {
    private final AgentPlan plan = Fixtures.plan();
    private final Action draft = Fixtures.draft(plan);
    private final Action resolve = Fixtures.resolve(plan);

    @TempDir
    Path tmp;

    private static JournalActionStateStore inMemory() {
        return Fixtures.store(ActionStateStoreFactory.inMemory(), 0, 1, 0);
    }

    private JournalActionStateStore fileStore(int subtask, int parallelism, int attempt) {
        return Fixtures.store(ActionStateStoreFactory.fileStores(tmp.resolve("store").toString()), subtask,
                parallelism, attempt);
    }

    @Test
    void theOperatorsFirstLookupByKeyTextAndLaterOnesByTheKeyFindOneEntry() {
        try (JournalActionStateStore store = inMemory()) {
            InputEvent event = Fixtures.input(1);
            // The operator's order for a new action: get(key.toString()), get(key), put(key, initial).
            assertNull(store.get("42", 1, draft, event));
            assertNull(store.get(42L, 1, draft, event));
            store.put(42L, 1, draft, event, Fixtures.stateWithCalls(event, 2, "x"));

            ActionState byText = store.get("42", 1, draft, event);
            ActionState byKey = store.get(42L, 1, draft, event);
            assertNotNull(byText);
            assertEquals(2, byText.getCallResults().size());
            assertEquals(json(byText), json(byKey));
        }
    }

    @Test
    void keysWithUnderscoresAreKeysLikeAnyOther() {
        try (JournalActionStateStore store = inMemory()) {
            InputEvent event = Fixtures.input(1);
            store.put("user_1_2", 3, draft, event, Fixtures.stateWithCalls(event, 1, "a"));
            store.put("user_1", 3, draft, event, Fixtures.stateWithCalls(event, 2, "b"));
            assertEquals(1, store.get("user_1_2", 3, draft, event).getCallResults().size());
            assertEquals(2, store.get("user_1", 3, draft, event).getCallResults().size());

            store.pruneState("user_1_2", 3);
            assertNull(store.get("user_1_2", 3, draft, event));
            assertNotNull(store.get("user_1", 3, draft, event), "pruning user_1_2 left user_1 alone");
        }
    }

    @Test
    void aKeyWhoseTextIsNotStableAcrossJvmsIsRefused() {
        try (JournalActionStateStore store = inMemory()) {
            InputEvent event = Fixtures.input(1);
            IllegalArgumentException refused = assertThrows(IllegalArgumentException.class,
                    () -> store.get(new Object(), 1, draft, event));
            assertTrue(refused.getMessage().contains("does not override toString()"), refused.getMessage());
        }
    }

    @Test
    void aReplayedRecordFindsItsEntryThoughFlinkAgentsGaveItANewEventId() {
        try (JournalActionStateStore store = inMemory()) {
            InputEvent first = Fixtures.input(5);
            store.put("user_2", 1, draft, first, Fixtures.stateWithCalls(first, 1, "chat"));

            InputEvent replayed = Fixtures.input(5);
            assertTrue(!first.getId().equals(replayed.getId()), "a new random id, as the operator makes for every record");
            assertNotNull(store.get("user_2", 1, draft, replayed));
            assertNull(store.get("user_2", 2, draft, Fixtures.input(5)), "an equal record of the key is another entry");
        }
    }

    @Test
    void anEventReadBackFromAStoredStateHasTheIdentityOfTheOriginal() {
        Event original = new Event("support_draft");
        original.setAttr("request", SupportRequest.number(3));
        original.setAttr("score", 0.1f);
        original.setAttr("big", 12345678901234567L);
        original.setAttr("tags", Arrays.asList("b", "a"));
        ActionState state = new ActionState(Fixtures.input(3));
        state.addEvent(original);
        Event readBack = ActionStateSerde.deserialize(ActionStateSerde.serialize(state)).getOutputEvents().get(0);

        assertTrue(readBack.getAttr("request") instanceof Map, "the POJO came back as a map: " + readBack.getAttr("request"));
        assertEquals(Arrays.toString(EventDigests.digest(original)), Arrays.toString(EventDigests.digest(readBack)));
        Event other = new Event("support_draft");
        other.setAttr("request", SupportRequest.number(4));
        assertTrue(!Arrays.equals(EventDigests.digest(original), EventDigests.digest(other)));
    }

    @Test
    void actionsAreFiledByNameSoAnotherPlansActionObjectFindsTheEntry() {
        try (JournalActionStateStore store = inMemory()) {
            InputEvent event = Fixtures.input(1);
            store.put("k", 1, draft, event, Fixtures.stateWithCalls(event, 1, "a"));
            Action sameActionOfAnotherPlan = Fixtures.draft(Fixtures.plan());
            assertNotNull(store.get("k", 1, sameActionOfAnotherPlan, event));
            assertNull(store.get("k", 1, resolve, event), "another action of the same event is another entry");
        }
    }

    @Test
    void aMissHidesTheLaterSequenceNumbersOfThatKeyOnly() {
        try (JournalActionStateStore store = inMemory()) {
            for (long seq = 1; seq <= 3; seq++) {
                InputEvent event = Fixtures.input((int) seq);
                store.put("user_0", seq, draft, event, Fixtures.stateWithCalls(event, 1, "u0-"));
            }
            InputEvent otherKeysEvent = Fixtures.input(9);
            store.put("user_1", 5, draft, otherKeysEvent, Fixtures.stateWithCalls(otherKeysEvent, 1, "u1-"));

            // The replay of user_0's second record has left the recorded history (an action it never ran).
            assertNull(store.get("user_0", 2, resolve, Fixtures.input(2)));

            assertNull(store.get("user_0", 3, draft, Fixtures.input(3)), "user_0's later history is hidden");
            assertNotNull(store.get("user_0", 2, draft, Fixtures.input(2)), "entries at the missed sequence number stay");
            assertNotNull(store.get("user_0", 1, draft, Fixtures.input(1)), "earlier sequence numbers stay");
            assertNotNull(store.get("user_1", 5, draft, Fixtures.input(9)),
                    "another key's entry at a later sequence number stays (Flink Agents' Kafka store drops it)");
        }
    }

    @Test
    void afterARestoreEachSubtaskKeepsItsOwnMarkersFromTheUnionOfAll() {
        List<Object> union = new ArrayList<>();
        for (int subtask = 0; subtask < 2; subtask++) {
            try (JournalActionStateStore store = fileStore(subtask, 2, 0)) {
                store.rebuildState(Collections.emptyList());
                InputEvent event = Fixtures.input(subtask);
                store.put("user_" + subtask, 1, draft, event, Fixtures.stateWithCalls(event, 1, "s" + subtask));
                union.add(store.getRecoveryMarker());
            }
        }
        Collections.reverse(union);
        for (int subtask = 0; subtask < 2; subtask++) {
            try (JournalActionStateStore restored = fileStore(subtask, 2, 1)) {
                restored.rebuildState(union);
                assertNotNull(restored.get("user_" + subtask, 1, draft, Fixtures.input(subtask)),
                        "subtask " + subtask + " kept its journal");
            }
        }
    }

    @Test
    void aCheckpointOfAnotherParallelismIsRefusedForGood() {
        Object marker;
        try (JournalActionStateStore store = fileStore(0, 2, 0)) {
            store.rebuildState(Collections.emptyList());
            marker = store.getRecoveryMarker();
        }
        try (JournalActionStateStore rescaled = fileStore(0, 3, 1)) {
            SuppressRestartsException refused = assertThrows(SuppressRestartsException.class,
                    () -> rescaled.rebuildState(Collections.singletonList(marker)));
            assertTrue(refused.getCause().getMessage().contains("restore at parallelism 2"), refused.getCause().getMessage());
        }
    }

    /** A factory whose stores restore at any parallelism, as the Kafka store's: it records what it is handed. */
    private static final class RescalableStores implements ActionStateStoreFactory {
        private static final long serialVersionUID = 1L;
        transient SubtaskScope scope;
        transient List<byte[]> markers;

        @Override
        public io.durablejournal.store.ActionStateStore open(int subtaskIndex, int parallelism) {
            throw new UnsupportedOperationException("opened with its scope");
        }

        @Override
        public io.durablejournal.store.ActionStateStore open(SubtaskScope opening) {
            scope = opening;
            markers = null;
            return new CountingStores.Counting(ActionStateStores.inMemory()) {
                @Override
                public void rebuildState(List<byte[]> recoveryMarkers) {
                    markers = recoveryMarkers;
                }
            };
        }

        @Override
        public boolean restoresAtAnyParallelism() {
            return true;
        }
    }

    @Test
    void aStoreThatRestoresAtAnyParallelismGetsEverySubtasksMarkersAndTheRescaledSubtasksScope() {
        RescalableStores stores = new RescalableStores();
        List<Object> union = new ArrayList<>();
        List<String> storeMarkers = new ArrayList<>();
        for (int subtask = 0; subtask < 2; subtask++) {
            try (JournalActionStateStore store = Fixtures.store(stores, subtask, 2, 0)) {
                store.rebuildState(Collections.emptyList());
                assertFalse(stores.scope.restored(), "a start without markers");
                assertNull(stores.markers, "nothing to rebuild from");
                Object marker = store.getRecoveryMarker();
                union.add(marker);
                storeMarkers.add(Base64.getEncoder().encodeToString(SubtaskMarker.decode((String) marker).storeMarker));
            }
        }
        try (JournalActionStateStore rescaled = new JournalActionStateStore(stores, 2, 3, 128, 1, Fixtures.JOB)) {
            rescaled.rebuildState(union);
            SubtaskScope scope = stores.scope;
            assertTrue(scope.restored());
            assertEquals(Arrays.asList(2, 3, 128, 1, 86, 127), Arrays.asList(scope.subtaskIndex(), scope.parallelism(),
                    scope.maxParallelism(), scope.attemptNumber(), scope.firstKeyGroup(), scope.lastKeyGroup()));
            assertEquals(Fixtures.JOB, scope.jobId());
            List<String> handed = new ArrayList<>();
            for (byte[] marker : stores.markers) {
                handed.add(Base64.getEncoder().encodeToString(marker));
            }
            assertEquals(storeMarkers, handed, "the markers of both subtasks of the checkpoint, a third subtask's included");
        }
    }

    @Test
    void aStoreIsRestoredBeforeItIsUsed() {
        try (JournalActionStateStore store = inMemory()) {
            assertNull(store.get("k", 1, draft, Fixtures.input(1)));
            IllegalStateException refused = assertThrows(IllegalStateException.class,
                    () -> store.rebuildState(Collections.emptyList()));
            assertTrue(refused.getMessage().contains("restored before it is used"), refused.getMessage());
        }
    }

    @Test
    void markersOfAnotherKindOfStoreAreRefused() {
        try (JournalActionStateStore store = inMemory()) {
            Object kafkaMarker = Collections.singletonMap(0, 42L);
            SuppressRestartsException refused = assertThrows(SuppressRestartsException.class,
                    () -> store.rebuildState(Collections.singletonList(kafkaMarker)));
            assertTrue(refused.getCause().getMessage().contains("another action state store"), refused.getCause().getMessage());
        }
    }

    @Test
    void aFirstStartOverEntriesOfAnEarlierRunIsRefusedALaterAttemptKeepsThem() {
        try (JournalActionStateStore earlier = fileStore(0, 1, 0)) {
            earlier.rebuildState(Collections.emptyList());
            InputEvent event = Fixtures.input(1);
            earlier.put("k", 1, draft, event, Fixtures.stateWithCalls(event, 1, "a"));
        }
        try (JournalActionStateStore freshJob = fileStore(0, 1, 0)) {
            SuppressRestartsException refused = assertThrows(SuppressRestartsException.class,
                    () -> freshJob.rebuildState(Collections.emptyList()));
            assertTrue(refused.getCause().getMessage().contains("1 entries of an earlier run"), refused.getCause().getMessage());
        }
        // The job failed before its first checkpoint and restarts: the entries are its own journals.
        try (JournalActionStateStore restarted = fileStore(0, 1, 1)) {
            restarted.rebuildState(Collections.emptyList());
            assertNotNull(restarted.get("k", 1, draft, Fixtures.input(1)));
        }
    }

    @Test
    void pruningEveryCompletedKeyAtEveryCheckpointReachesTheNativeStoreOncePerKey() {
        CountingStores counting = new CountingStores();
        try (JournalActionStateStore store = Fixtures.store(counting, 0, 1, 0)) {
            int keys = 1000;
            for (int k = 0; k < keys; k++) {
                InputEvent event = Fixtures.input(k);
                store.put("user_" + k, 1, draft, event, Fixtures.stateWithCalls(event, 1, "a"));
            }
            store.getRecoveryMarker();
            // The operator prunes every key that ever completed, at every checkpoint.
            for (int checkpoint = 0; checkpoint < 10; checkpoint++) {
                for (int k = 0; k < keys; k++) {
                    store.pruneState("user_" + k, 1);
                }
            }
            assertEquals(keys, counting.opened.prunes, "one native prune per key, not one per key per checkpoint");
            assertEquals(0, counting.opened.nativeStore.stats().entries());

            InputEvent next = Fixtures.input(5000);
            store.put("user_7", 2, draft, next, Fixtures.stateWithCalls(next, 1, "b"));
            store.pruneState("user_7", 2);
            assertEquals(keys + 1, counting.opened.prunes, "a key's next sequence number is pruned again");
            assertNull(store.get("user_7", 2, draft, next));
        }
    }

    @Test
    void replaysCountEntriesOfAnEarlierAttemptOnceEach() {
        InputEvent first = Fixtures.input(1);
        InputEvent second = Fixtures.input(2);
        try (JournalActionStateStore earlier = fileStore(0, 1, 0)) {
            earlier.rebuildState(Collections.emptyList());
            ActionState completed = Fixtures.stateWithCalls(first, 1, "a");
            completed.markCompleted();
            earlier.put("k", 1, draft, first, completed);
            earlier.put("k", 2, draft, second, Fixtures.stateWithCalls(second, 2, "b"));
        }
        try (JournalActionStateStore restarted = fileStore(0, 1, 1)) {
            restarted.rebuildState(Collections.emptyList());
            for (int lookups = 0; lookups < 3; lookups++) {
                assertTrue(restarted.get("k", 1, draft, Fixtures.input(1)).isCompleted());
                assertEquals(2, restarted.get("k", 2, draft, Fixtures.input(2)).getCallResults().size());
            }
            InputEvent third = Fixtures.input(3);
            restarted.put("k", 3, draft, third, Fixtures.stateWithCalls(third, 1, "c"));
            restarted.get("k", 3, draft, third);
            restarted.pruneState("k", 1);
            restarted.get("k", 2, draft, Fixtures.input(2));

            ReplayCounts replays = restarted.replays();
            assertEquals(1, replays.actionsReemitted.getLocalValue(), "the completed entry, once");
            assertEquals(1, replays.actionsResumed.getLocalValue(),
                    "the interrupted entry, once; not the one this store wrote, nor one seen before a prune");
        }
    }

    @Test
    void theStoreIsSerializedWithoutItsNativeStoreAndEachCopyOpensItsOwn() throws Exception {
        JournalActionStateStore original = inMemory();
        InputEvent event = Fixtures.input(1);
        original.put("k", 1, draft, event, Fixtures.stateWithCalls(event, 1, "a"));

        JournalActionStateStore copy = roundTrip(original);
        try {
            assertNull(copy.get("k", 1, draft, event), "the copy opened a store of its own");
            assertNotNull(original.get("k", 1, draft, event));
        } finally {
            copy.close();
            original.close();
        }
    }

    @Test
    void aClosedStoreSaysSo() {
        JournalActionStateStore store = inMemory();
        store.close();
        store.close();
        IllegalStateException closed = assertThrows(IllegalStateException.class,
                () -> store.get("k", 1, draft, Fixtures.input(1)));
        assertTrue(closed.getMessage().contains("closed"), closed.getMessage());
    }

    private static JournalActionStateStore roundTrip(JournalActionStateStore store) throws Exception {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        try (ObjectOutputStream out = new ObjectOutputStream(bytes)) {
            out.writeObject(store);
        }
        try (ObjectInputStream in = new ObjectInputStream(new ByteArrayInputStream(bytes.toByteArray()))) {
            return (JournalActionStateStore) in.readObject();
        }
    }

    private static String json(ActionState state) {
        return new String(ActionStateSerde.serialize(state), java.nio.charset.StandardCharsets.UTF_8);
    }
}
