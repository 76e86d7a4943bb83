package io.durablejournal.store;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.durablejournal.ActionState;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import io.durablejournal.DurableExecutionContext;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.Collections;
import java.util.List;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * A {@link GroupedKey} is its key with the key group its entries belong in: the memory and file
 * stores file exactly what they file for the plain key, and the log store puts the entry in the
 * key group it names instead of the one its {@code keyGroupOf} gives the key.
 */
class GroupedKeyTest extends StoreFixture {
    private static final EventIdentity EVENT = EventIdentity.occurrence("occ-1");
    private static final int MAX_PARALLELISM = 8;
    /** The key group the tests' keys belong in (partition 0 of the three-partition log). */
    private static final int FLINK_KEY_GROUP = 1;
    /** The key group the log store's {@code keyGroupOf} gives every plain key (partition 2). */
    private static final int TEXT_KEY_GROUP = 6;

    private static ActionState stateWithMemory(String value) {
        ActionState state = new ActionState();
        state.addShortTermMemoryUpdate(JsonNodeFactory.instance.objectNode().put("path", value));
        return state;
    }

    @Test
    void aGroupedKeyNeedsAKeyAndANonNegativeKeyGroup() {
        assertEquals("key", assertThrows(NullPointerException.class, () -> GroupedKey.of(null, 0)).getMessage());
        assertTrue(assertThrows(IllegalArgumentException.class, () -> GroupedKey.of("k", -1)).getMessage().contains("negative key group -1"));
        GroupedKey grouped = GroupedKey.of(42L, 3);
        assertTrue(assertThrows(IllegalArgumentException.class, () -> GroupedKey.of(grouped, 3)).getMessage().contains("grouped already"));
        assertEquals(42L, grouped.key());
        assertEquals(3, grouped.keyGroup());
        assertEquals(GroupedKey.of(42L, 3), grouped);
        assertEquals(GroupedKey.of(42L, 3).hashCode(), grouped.hashCode());
        assertEquals(GroupedKey.of(new byte[] {1}, 3), GroupedKey.of(new byte[] {1}, 3), "byte[] keys by content");
    }

    @ParameterizedTest
    @MethodSource("stores")
    void aGetWithThePlainKeyFindsAnEntryPutWithTheGroupedKeyAndTheOtherWayRound(String kind) throws Exception {
        NativeActionStateStore store = open(kind);
        store.put(GroupedKey.of("user-7", FLINK_KEY_GROUP), 0, "act", EVENT, stateWithMemory("grouped"));
        store.put("user-8", 0, "act", EVENT, stateWithMemory("plain"));
        assertEquals(stateWithMemory("grouped"), store.get("user-7", 0, "act", EVENT));
        assertEquals(stateWithMemory("plain"), store.get(GroupedKey.of("user-8", FLINK_KEY_GROUP), 0, "act", EVENT));
        assertNull(store.get(GroupedKey.of(7L, FLINK_KEY_GROUP), 0, "act", EVENT), "the key keeps its kind: 7L is not \"user-7\"");
        try (DurableExecutionContext journal = store.openContext(GroupedKey.of("user-7", FLINK_KEY_GROUP), 0, "act", EVENT, null)) {
            assertNotNull(journal);
        }
        store.pruneState(GroupedKey.of("user-7", 5), 0);
        assertNull(store.get("user-7", 0, "act", EVENT), "pruned through the grouped key");
        assertEquals(EventIdentity.rootOccurrence("user-8", 3), EventIdentity.rootOccurrence(GroupedKey.of("user-8", 2), 3));
    }

    /** The same calls with plain keys and with grouped ones write the same records, byte for byte. */
    @Test
    void theFileStoreWritesTheSameBytesForAGroupedKeyAsForThePlainKey() throws Exception {
        NativeActionStateStore plain = open("file");
        NativeActionStateStore grouped = open("file");
        Object[] keys = {"user-😀", 7L, 7, new byte[] {1, 2}, Arrays.asList("a", "b")};
        for (Object key : keys) {
            writeEntries(plain, key);
            writeEntries(grouped, GroupedKey.of(key, FLINK_KEY_GROUP));
        }
        plain.close();
        grouped.close();
        assertArrayEquals(segmentRecords(Path.of(plain.describe())), segmentRecords(Path.of(grouped.describe())));
    }

    private static void writeEntries(ActionStateStore store, Object key) {
        store.put(key, 0, "act", EVENT, stateWithMemory("v"));
        store.put(key, 1, "act", EVENT, stateWithMemory("w"));
        store.pruneState(key, 0);
        assertNull(store.get(key, 0, "other", EVENT));
    }

    /** The records of a file store's one segment: everything after its 56-byte header (which holds a random store id). */
    private static byte[] segmentRecords(Path dir) throws Exception {
        try (Stream<Path> files = Files.list(dir)) {
            List<Path> segments = files.filter(f -> f.getFileName().toString().endsWith(".log")).collect(Collectors.toList());
            assertEquals(1, segments.size(), segments.toString());
            byte[] segment = Files.readAllBytes(segments.get(0));
            assertTrue(segment.length > 56 + 100, "records were written");
            return Arrays.copyOfRange(segment, 56, segment.length);
        }
    }

    /** A log store over a three-partition log of 8 key groups owning {@code first..last}; plain keys go to TEXT_KEY_GROUP. */
    private static LogActionStateStore logStore(MemoryLog log, int first, int last) {
        return LogActionStateStore.open(log, MAX_PARALLELISM, first, last, key -> TEXT_KEY_GROUP);
    }

    @Test
    void theLogStoreFilesAGroupedKeysEntryInItsKeyGroupWithoutLoadingAnother() {
        MemoryLog log = new MemoryLog("memory log", 3);
        byte[] marker;
        try (LogActionStateStore store = logStore(log, FLINK_KEY_GROUP, FLINK_KEY_GROUP)) {
            store.startFresh(new byte[16]);
            store.put(GroupedKey.of(42L, FLINK_KEY_GROUP), 0, "act", EVENT, stateWithMemory("grouped"));
            assertEquals(stateWithMemory("grouped"), store.get(GroupedKey.of(42L, FLINK_KEY_GROUP), 0, "act", EVENT));
            assertEquals(0, log.partitionReads(), "the key group is the store's own: nothing loaded");
            assertEquals(1, log.endOffsets()[0], "the record is in partition 0, key group " + FLINK_KEY_GROUP + "'s");

            store.put(43L, 0, "act", EVENT, stateWithMemory("plain"));
            assertEquals(1, log.partitionReads(), "a plain key of key group " + TEXT_KEY_GROUP + " loads that key group first");
            assertEquals(1, log.endOffsets()[2]);
            marker = store.getRecoveryMarker();
        }
        int readsBefore = log.partitionReads();
        try (LogActionStateStore owner = logStore(log, FLINK_KEY_GROUP, FLINK_KEY_GROUP)) {
            owner.rebuildState(Collections.singletonList(marker));
            assertEquals(1, owner.stats().entries(), "the owner of key group " + FLINK_KEY_GROUP + " holds the grouped key's entry");
            assertEquals(stateWithMemory("grouped"), owner.get(GroupedKey.of(42L, FLINK_KEY_GROUP), 0, "act", EVENT));
            assertEquals(readsBefore + 1, log.partitionReads(), "its own partition only");
        }
        try (LogActionStateStore other = logStore(log, TEXT_KEY_GROUP, TEXT_KEY_GROUP)) {
            other.rebuildState(Collections.singletonList(marker));
            assertEquals(1, other.stats().entries(), "the owner of key group " + TEXT_KEY_GROUP + " holds the plain key's entry only");
            assertEquals(stateWithMemory("plain"), other.get(43L, 0, "act", EVENT));
        }
    }

    /**
     * Entries a build before GroupedKey wrote for a key's text are in the text's key group. A
     * store that holds that key group finds them through the grouped key and keeps writing them
     * there; the key's new entries go to the named key group. A store owning only the named key
     * group does not have them (the calls they journaled run again).
     */
    @Test
    void entriesWrittenInTheTextsKeyGroupBeforeStayFoundWhereThatKeyGroupIsLoaded() {
        MemoryLog log = new MemoryLog("memory log", 3);
        byte[] marker;
        try (LogActionStateStore earlier = logStore(log, 0, MAX_PARALLELISM - 1)) {
            earlier.startFresh(new byte[16]);
            earlier.put("42", 0, "act", EVENT, stateWithMemory("earlier"));
            marker = earlier.getRecoveryMarker();
        }
        assertArrayEquals(new long[] {0, 0, 1}, log.endOffsets(), "in key group " + TEXT_KEY_GROUP + "'s partition");
        try (LogActionStateStore upgraded = logStore(log, 0, MAX_PARALLELISM - 1)) {
            upgraded.rebuildState(Collections.singletonList(marker));
            GroupedKey grouped = GroupedKey.of("42", FLINK_KEY_GROUP);
            assertEquals(stateWithMemory("earlier"), upgraded.get(grouped, 0, "act", EVENT));
            upgraded.put(grouped, 0, "act", EVENT, stateWithMemory("earlier, again"));
            upgraded.put(grouped, 1, "act", EVENT, stateWithMemory("new"));
            assertArrayEquals(new long[] {1, 0, 2}, log.endOffsets(), "the earlier entry in its key group, the new one in the named");
            marker = upgraded.getRecoveryMarker();
        }
        try (LogActionStateStore both = logStore(log, 0, MAX_PARALLELISM - 1)) {
            both.rebuildState(Collections.singletonList(marker));
            assertEquals(2, both.stats().entries(), "a restore reads the key in both key groups");
        }
        try (LogActionStateStore owner = logStore(log, FLINK_KEY_GROUP, FLINK_KEY_GROUP)) {
            owner.rebuildState(Collections.singletonList(marker));
            assertEquals(stateWithMemory("new"), owner.get(GroupedKey.of("42", FLINK_KEY_GROUP), 1, "act", EVENT));
            assertNull(owner.get(GroupedKey.of("42", FLINK_KEY_GROUP), 0, "act", EVENT), "the earlier entry is not in its key groups");
        }
    }

    @Test
    void theLogStoreRefusesAKeyGroupOutsideItsMaxParallelismAndWritesNothing() {
        MemoryLog log = new MemoryLog("memory log", 3);
        try (LogActionStateStore store = logStore(log, 0, MAX_PARALLELISM - 1)) {
            store.startFresh(new byte[16]);
            IllegalArgumentException refused = assertThrows(IllegalArgumentException.class,
                    () -> store.put(GroupedKey.of(42L, MAX_PARALLELISM), 0, "act", EVENT, new ActionState()));
            assertTrue(refused.getMessage().contains("key '42' in key group 8 is outside the key groups 0..7"), refused.getMessage());
            assertThrows(IllegalArgumentException.class, () -> store.get(GroupedKey.of(42L, MAX_PARALLELISM), 0, "act", EVENT));
            assertEquals(0, store.stats().entries());
            assertArrayEquals(new long[] {0, 0, 0}, log.endOffsets());
        }
    }
}
