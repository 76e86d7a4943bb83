package io.durablejournal.flinkagents;

import java.util.LinkedHashMap;
import java.util.Map;

/**
 * A map that holds at most its capacity: a put beyond it drops the eldest entry, the least
 * recently used or the first put. For caches and memories that must not grow with the job's
 * history. Not thread-safe.
 */
final class BoundedMap<K, V> extends LinkedHashMap<K, V> {
    private static final long serialVersionUID = 1L;

    private final int capacity;

    private BoundedMap(int capacity, boolean accessOrder) {
        super(16, 0.75f, accessOrder);
        this.capacity = capacity;
    }

    /** Drops the entry read or put least recently. */
    static <K, V> Map<K, V> leastRecentlyUsed(int capacity) {
        return new BoundedMap<>(capacity, true);
    }

    /** Drops the entry put first. */
    static <K, V> Map<K, V> firstPutFirstDropped(int capacity) {
        return new BoundedMap<>(capacity, false);
    }

    @Override
    protected boolean removeEldestEntry(Map.Entry<K, V> eldest) {
        return size() > capacity;
    }
}
