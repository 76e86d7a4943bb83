package io.durablejournal.flinkagents;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.Map;
import org.junit.jupiter.api.Test;

/** The two bounds the adapter's caches rely on: what a put beyond capacity drops. */
class BoundedMapTest {
    @Test
    void leastRecentlyUsedDropsTheEntryNotReadForLongest() {
        Map<String, Integer> digests = BoundedMap.leastRecentlyUsed(2);
        digests.put("a", 1);
        digests.put("b", 2);
        digests.get("a"); // "b" is now the one read least recently
        digests.put("c", 3);
        assertEquals(Map.of("a", 1, "c", 3), digests);
    }

    @Test
    void firstPutFirstDroppedIgnoresReads() {
        Map<String, Integer> identities = BoundedMap.firstPutFirstDropped(2);
        identities.put("a", 1);
        identities.put("b", 2);
        identities.get("a"); // a read does not keep "a"
        identities.put("c", 3);
        assertEquals(Map.of("b", 2, "c", 3), identities);
    }

    @Test
    void neverHoldsMoreThanItsCapacity() {
        Map<Integer, Integer> bounded = BoundedMap.leastRecentlyUsed(3);
        for (int i = 0; i < 100; i++) {
            bounded.put(i, i);
            assertEquals(Math.min(i + 1, 3), bounded.size());
        }
        assertEquals(Map.of(97, 97, 98, 98, 99, 99), bounded);
    }
}
