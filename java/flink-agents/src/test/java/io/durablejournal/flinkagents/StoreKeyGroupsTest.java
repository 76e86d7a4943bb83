package io.durablejournal.flinkagents;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.durablejournal.ActionState;
import io.durablejournal.DurableExecutionContext;
import io.durablejournal.flink.ActionStateStoreFactory;
import io.durablejournal.flink.SubtaskScope;
import io.durablejournal.store.ActionStateStore;
import io.durablejournal.store.ActionStateStores;
import io.durablejournal.store.EventIdentity;
import io.durablejournal.store.GroupedKey;
import io.durablejournal.testing.ForwardingStore;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.apache.flink.agents.api.InputEvent;
import org.apache.flink.agents.plan.AgentPlan;
import org.apache.flink.agents.plan.actions.Action;
import org.apache.flink.runtime.state.KeyGroupRangeAssignment;
import org.junit.jupiter.api.Test;

/**
 * What the adapter hands its store as the key: the key's text, and, for a store that restores at
 * any parallelism (the Kafka store groups entries by Flink key group), the text in the Flink key's
 * own key group when the key is not a {@code String} ({@link GroupedKey}), the operator's first
 * lookup by the key's text included.
 */
class StoreKeyGroupsTest {
    private final AgentPlan plan = Fixtures.plan();
    private final Action draft = Fixtures.draft(plan);

    /** In-memory stores that record every key they are handed (for one test, never serialized). */
    private static final class RecordingStores implements ActionStateStoreFactory {
        private static final long serialVersionUID = 1L;
        private final boolean anyParallelism;
        final transient List<Object> keys = new ArrayList<>();

        RecordingStores(boolean anyParallelism) {
            this.anyParallelism = anyParallelism;
        }

        @Override
        public ActionStateStore open(int subtaskIndex, int parallelism) {
            return open((SubtaskScope) null);
        }

        @Override
        public ActionStateStore open(SubtaskScope scope) {
            return new ForwardingStore(ActionStateStores.inMemory()) {
                @Override
                public void put(Object key, long seqNum, String actionName, EventIdentity event, ActionState state) {
                    keys.add(key);
                    super.put(key, seqNum, actionName, event, state);
                }

                @Override
                public ActionState get(Object key, long seqNum, String actionName, EventIdentity event) {
                    keys.add(key);
                    return super.get(key, seqNum, actionName, event);
                }

                @Override
                public DurableExecutionContext openContext(Object key, long seqNum, String actionName, EventIdentity event,
                        ActionState initial) {
                    keys.add(key);
                    return super.openContext(key, seqNum, actionName, event, initial);
                }

                @Override
                public void pruneState(Object key, long seqNumUpTo) {
                    keys.add(key);
                    super.pruneState(key, seqNumUpTo);
                }
            };
        }

        @Override
        public boolean restoresAtAnyParallelism() {
            return anyParallelism;
        }
    }

    /**
     * The keys the store is handed for Flink Agents' calls of one new action of {@code key} under
     * the operator (the text first, then the key), each once.
     */
    private Set<Object> keysHandedForOneAction(RecordingStores stores, Object key) {
        return keysHandedForOneAction(stores, key, true);
    }

    private Set<Object> keysHandedForOneAction(RecordingStores stores, Object key, boolean underTheOperator) {
        try (JournalActionStateStore store = Fixtures.store(stores, 0, 1, 0)) {
            if (underTheOperator) {
                store.keyedBy(() -> key);
            }
            store.rebuildState(Collections.emptyList());
            InputEvent event = Fixtures.input(1);
            assertNull(store.get(key.toString(), 1, draft, event));
            assertNull(store.get(key, 1, draft, event));
            store.put(key, 1, draft, event, new org.apache.flink.agents.runtime.actionstate.ActionState(event));
            assertNotNull(store.get(key.toString(), 1, draft, event), "found by the text the operator asks with");
            store.pruneState(key, 1);
            assertNull(store.get(key, 1, draft, event), "pruned");
            assertTrue(stores.keys.size() >= 4, "a get, the put, the prune and a get reach the store: " + stores.keys);
            return new HashSet<>(stores.keys);
        }
    }

    @Test
    void aLongKeysTextIsPlacedInTheLongsKeyGroupForAStoreThatRestoresAtAnyParallelism() {
        int flinkKeyGroup = KeyGroupRangeAssignment.assignToKeyGroup(42L, 128);
        assertEquals(Collections.singleton(GroupedKey.of("42", flinkKeyGroup)), keysHandedForOneAction(new RecordingStores(true), 42L));
    }

    @Test
    void aStringKeyAndAPerSubtaskStoreGetTheText() {
        assertEquals(Collections.singleton("user_1"), keysHandedForOneAction(new RecordingStores(true), "user_1"));
        assertEquals(Collections.singleton("42"), keysHandedForOneAction(new RecordingStores(false), 42L));
    }

    /** Another operator's store cannot tell a key's text from a String key: it hands the text, as before GroupedKey. */
    @Test
    void withoutTheOperatorsCurrentKeyTheTextIsHanded() {
        assertEquals(Collections.singleton("42"), keysHandedForOneAction(new RecordingStores(true), 42L, false));
    }

    @Test
    void aStringThatIsNotTheCurrentKeysTextIsAStringKey() {
        RecordingStores stores = new RecordingStores(true);
        try (JournalActionStateStore store = Fixtures.store(stores, 0, 1, 0)) {
            store.keyedBy(() -> 42L);
            store.rebuildState(Collections.emptyList());
            assertNull(store.get("43", 1, draft, Fixtures.input(1)));
            assertEquals(Collections.singletonList("43"), stores.keys);
        }
    }
}
