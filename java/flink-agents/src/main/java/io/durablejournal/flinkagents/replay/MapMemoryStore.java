package io.durablejournal.flinkagents.replay;

import java.util.HashMap;
import java.util.Map;
import org.apache.flink.agents.runtime.memory.MemoryObjectImpl.MemoryItem;
import org.apache.flink.agents.runtime.memory.MemoryStore;

/** Flink Agents' memory items of one replayed action, in a map: nothing leaves the replay. */
final class MapMemoryStore implements MemoryStore {
    private final Map<String, MemoryItem> items = new HashMap<>();

    @Override
    public MemoryItem get(String key) {
        return items.get(key);
    }

    @Override
    public void put(String key, MemoryItem value) {
        items.put(key, value);
    }

    @Override
    public boolean contains(String key) {
        return items.containsKey(key);
    }

    @Override
    public void clear() {
        items.clear();
    }
}
